//! Builds the whole application from a [`Config`]: the one place that names concrete adapters.

use actix_web::dev::Server;
use actix_web::{App, middleware};
use adapter_http::public_config::{IdentityConfig, IdentityKind};
use adapter_http::{HttpState, PublicConfig};
use domain::common::EmailAddress;
use std::net::TcpListener;

use crate::Config;

/// The public key the browser's identity client sends to the built-in service (`apikey` and `Authorization`
/// on public endpoints). It grants nothing: the built-in service accepts and ignores it, as Supabase's
/// anonymous key grants nothing beyond public endpoints.
pub const BUILT_IN_ANON_KEY: &str = "built-in";

/// Connections per instance. SQLite serialises writers in-process, so more connections only help readers.
const POOL_SIZE: u32 = 16;

/// Threads each worker may run blocking work on at once (database calls, password hashing, files); more
/// waits in the worker's queue. Two per pooled connection: a reader and a writer waiting for each. Without a
/// bound (actix's default is 512 shared by the workers) the pool keeps every thread a burst ever started,
/// each with its own allocator arena, and the server's memory follows the highest concurrency it has seen
/// (docs/benchmarks.md, the soak on PostgreSQL).
const BLOCKING_THREADS_PER_WORKER: usize = 2 * POOL_SIZE as usize;

/// How long a client may take to send a request's head (method, path and headers).
const REQUEST_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Opens the configured database and applies pending migrations.
///
/// # Errors
/// With the real cause when the database cannot be opened or migrated.
pub fn open_database(config: &Config) -> anyhow::Result<adapter_db::Db> {
    migrated(
        adapter_db::Db::connect_with(&config.database_url, POOL_SIZE, &config.database_options)?,
        config,
    )
}

/// Opens the configured database for a command that runs and exits (`migrate`, `admin`, `factors`): one
/// connection, nothing opened in the background ([`adapter_db::Db::connect_for_command`]); applies pending
/// migrations.
///
/// # Errors
/// As [`open_database`].
pub fn open_database_for_command(config: &Config) -> anyhow::Result<adapter_db::Db> {
    migrated(
        adapter_db::Db::connect_for_command_with(&config.database_url, &config.database_options)?,
        config,
    )
}

/// The migrated database, whose repositories answer logos at the configured public address.
fn migrated(db: adapter_db::Db, config: &Config) -> anyhow::Result<adapter_db::Db> {
    let applied = db.run_migrations()?;
    if !applied.is_empty() {
        tracing::info!(migrations = ?applied, "applied database migrations");
    }
    Ok(db.with_image_links(domain::media::ImageLinks::new(&config.public_url)))
}

/// A built, bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
    workers: crate::workers::Workers,
    setup_link: Option<String>,
    db: adapter_db::Db,
}

impl Application {
    /// Binds the listener (port 0 picks a free port) and wires every adapter.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated, a configured admin e-mail is invalid, or the address
    /// cannot be bound.
    pub async fn build(config: &Config) -> anyhow::Result<Self> {
        let db = open_database(config)?;
        tracing::info!(backend = ?db.backend(), "database ready");
        seed_platform_admins(config, &db).await?;
        let first_admin = std::sync::Arc::new(domain::identity::FirstAdminSetup::new(
            std::sync::Arc::new(adapter_db::repos::DieselPlatformAdminRepository::new(db.clone())),
            std::sync::Arc::new(crate::system::SystemClock),
            std::sync::Arc::new(adapter_identity::OsSecretGenerator),
        ));
        let setup_link = issue_setup_link(config, &first_admin).await?;
        let listener = TcpListener::bind(config.bind)
            .map_err(|e| anyhow::anyhow!("could not listen on {}: {e}", config.bind))?;
        let port = listener.local_addr()?.port();
        let identity = crate::identity::wire(config, &db).await?;
        let image_store = crate::media::image_store(config)?;
        let apps = crate::apps::wire(config, &db, image_store.clone());
        let uptime = crate::uptime::service(config, &db, std::sync::Arc::new(crate::system::SystemClock))?;
        let (webhooks, webhook_delivery) =
            crate::webhooks::service(config, &db, crate::identity::digest_key(config, &db).await?)?;
        // Once: secrets stored in the clear (before they were sealed, or by an older instance) are sealed.
        let sealed = webhook_delivery.seal_stored_secrets().await?;
        if sealed > 0 {
            tracing::info!(
                sealed,
                "webhook signing secrets stored in the clear are now sealed"
            );
        }
        let state = HttpState {
            public_config: public_config(config),
            identity: identity.identity,
            auth: identity.auth,
            first_admin: adapter_http::auth::setup::FirstAdminApi(first_admin),
            admin: crate::review::wire(config, &db)?,
            memberships: adapter_http::auth::Memberships(std::sync::Arc::new(
                adapter_db::repos::DieselMemberDirectory::new(db.clone()),
            )),
            orgs: crate::orgs::wire(config, &db, image_store.clone()),
            images: adapter_http::images::ImagesApi(std::sync::Arc::new(crate::media::service(
                config,
                &db,
                image_store.clone(),
            ))),
            apps: apps.clone(),
            uptime: adapter_http::uptime::UptimeApi {
                uptime,
                apps: apps.apps,
            },
            audit: adapter_http::audit::AuditApi(std::sync::Arc::new(domain::audit::AuditService::new(
                std::sync::Arc::new(adapter_db::repos::DieselAuditLog::new(db.clone())),
            ))),
            tokens: adapter_http::tokens::TokensApi {
                service: identity.tokens.clone(),
            },
            webhooks: adapter_http::webhooks::WebhooksApi(std::sync::Arc::new(webhooks)),
            readiness: adapter_http::system::ReadinessCheck(std::sync::Arc::new(db.clone())),
            metrics: crate::metrics::route(
                config,
                &db,
                crate::uptime::monitor_service(config, &db, std::sync::Arc::new(crate::system::SystemClock))?,
            )?,
        };
        let frontend_dir = config.frontend_dir.clone();
        let connect_sources: Vec<String> = config.supabase.iter().map(|s| s.url.clone()).collect();
        let script_sources = adapter_http::spa::inline_script_sources(&frontend_dir);
        let body_timeouts = config.body_timeouts;
        let public_url = config.public_url.clone();
        let app = move || {
            App::new()
                .wrap(middleware::from_fn(move |req, next| {
                    adapter_http::slow_clients::limit(body_timeouts, req, next)
                }))
                .wrap(adapter_http::headers::security_headers(
                    &connect_sources,
                    &script_sources,
                    &public_url,
                ))
                .wrap(middleware::Compress::default())
                .wrap(middleware::from_fn(adapter_http::request_log::log_request))
                .configure(adapter_http::configure(state.clone(), frontend_dir.clone()))
        };
        // actix-web's `HttpServer`: a worker per core, keep-alive, graceful shutdown on SIGTERM/SIGINT
        // (in-flight requests finish). A request head the HTTP parser refuses gets actix-http's own bare 400
        // or 431 and the connection closes (docs/api-design.md, "Refusals at the protocol level").
        let server = actix_web::HttpServer::new(app)
            .worker_max_blocking_threads(BLOCKING_THREADS_PER_WORKER)
            // A request head must arrive within this (else 408 and the connection closes); the body is bounded
            // by `slow_clients::limit`.
            .client_request_timeout(REQUEST_HEAD_TIMEOUT)
            .client_disconnect_timeout(std::time::Duration::from_secs(1))
            // Without it, the last small segment of a compressed answer written in pieces waits for the
            // client's delayed acknowledgement (40 ms on Linux) before it leaves.
            .tcp_nodelay(true)
            .listen(listener)?
            .run();
        let workers =
            crate::workers::Workers::start(config, &db, Some(identity.tokens), Some(webhook_delivery))?;
        tracing::info!(port, address = %config.bind.ip(), "developer portal listening");
        Ok(Self {
            port,
            server,
            workers,
            setup_link,
            db,
        })
    }

    /// The first-admin setup link this start wrote to the log (`None` when the platform has an admin).
    #[must_use]
    pub fn first_admin_setup_link(&self) -> Option<&str> {
        self.setup_link.as_deref()
    }

    /// The database the server runs on (its pool's figures, such as the calls run: [`adapter_db::PoolStats`]).
    #[must_use]
    pub fn database(&self) -> adapter_db::Db {
        self.db.clone()
    }

    /// The port actually bound.
    #[must_use]
    pub const fn port(&self) -> u16 {
        self.port
    }

    /// Serves until the process is asked to stop (SIGINT/SIGTERM stop it gracefully).
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        self.workers.stop().await;
        served
    }
}

/// Makes the addresses of `PORTAL_ADMIN_EMAILS` platform admins, each once: an address added at an earlier
/// start is not added again, so a role revoked since stays revoked. A role binds to an account that proved
/// the address, else waits for one; a warning says how to finish when nothing can prove it.
async fn seed_platform_admins(config: &Config, db: &adapter_db::Db) -> anyhow::Result<()> {
    if config.admin_emails.is_empty() {
        return Ok(());
    }
    let report = crate::admin_cli::service(db)
        .seed(&config.admin_emails.join(","))
        .await
        .map_err(|e| anyhow::anyhow!("PORTAL_ADMIN_EMAILS: {e}"))?;
    for admin in &report.added {
        tracing::info!(email = %admin.email, bound = admin.is_bound(), "made a platform admin from PORTAL_ADMIN_EMAILS");
    }
    if report.pending.is_empty() {
        return Ok(());
    }
    let pending = report
        .pending
        .iter()
        .map(EmailAddress::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if config.smtp_url.is_none() {
        tracing::warn!(
            emails = %pending,
            "PORTAL_ADMIN_EMAILS: these platform admins wait for an account that proves the address, and with no \
             SMTP server configured no e-mail can prove it (sign-up confirms at once without proof). Sign in \
             once with the address, then run `app-server admin grant EMAIL` to give that account the role; or \
             configure SMTP_URL (or sign in with a provider that verifies the address)"
        );
    } else {
        tracing::info!(
            emails = %pending,
            "PORTAL_ADMIN_EMAILS: these platform admins get the role when an account proves the address \
             (the confirmation link or a code e-mailed to it, or a provider's verified e-mail)"
        );
    }
    Ok(())
}

/// While no account holds the `admin` role: a new one-time setup link (replacing the one of an earlier
/// start), written to the log for the operator, who opens it signed in to become the first admin.
async fn issue_setup_link(
    config: &Config,
    setup: &domain::identity::FirstAdminSetup,
) -> anyhow::Result<Option<String>> {
    let Some(link) = setup
        .issue()
        .await
        .map_err(|e| anyhow::anyhow!("first-admin setup link: {e}"))?
    else {
        return Ok(None);
    };
    let url = format!(
        "{}/setup-admin?token={}",
        config.public_url.trim_end_matches('/'),
        link.token
    );
    tracing::warn!(
        link = %url,
        expires_at = %link.expires_at.to_rfc3339(),
        "the platform has no admin yet: sign in to the portal, then open this one-time link within the hour \
         to become the first platform admin (a new link is written at every start while no admin exists)"
    );
    Ok(Some(url))
}

fn public_config(config: &Config) -> PublicConfig {
    let identity = config.supabase.as_ref().map_or_else(
        || IdentityConfig {
            kind: IdentityKind::Builtin,
            url: config.public_url.clone(),
            auth_url: crate::identity::access_issuer(config),
            anon_key: BUILT_IN_ANON_KEY.into(),
        },
        |hosted| IdentityConfig {
            kind: IdentityKind::Hosted,
            url: hosted.url.clone(),
            auth_url: hosted.auth_url(),
            anon_key: hosted.anon_key.clone(),
        },
    );
    PublicConfig {
        docs_url: config.docs_url.clone(),
        source_url: config.source_url.clone(),
        example_app_url: config.example_app_url.clone(),
        providers: config.oauth_providers.iter().map(|p| p.name.to_owned()).collect(),
        identity,
        keep_loopback_http: config.allow_private_targets,
        monitor_interval_secs: config.uptime_interval_secs,
        companion_install_url: config.companion_install_url.clone(),
        passkey_origin: crate::identity::passkey_origin(config),
        mail_sent: config.smtp_url.is_some() || config.supabase.is_some(),
    }
}
