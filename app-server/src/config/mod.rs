//! Configuration from environment variables (PRODUCT.md §8). Every variable is listed in the README.

mod companion;
mod hosted;
mod images;
mod providers;

use adapter_http::client_ip::TrustedProxies;
use adapter_identity::HashCost;
use companion::companion_install_url;
pub use hosted::HostedSupabase;
use hosted::hosted_supabase;
pub use images::ImageStoreConfig;
use images::image_store;
pub use providers::OAuthProvider;
use providers::oauth_providers;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Health checks in flight at once unless `PORTAL_UPTIME_CONCURRENCY` says otherwise. A silent target holds
/// its slot for the whole 10 s time limit: with 100,000 apps a minute of which a few percent never answer,
/// about a thousand slots are held by them alone, and the first round after a start has every app due at
/// once. Each slot is a connection and a small task, not a thread.
pub const DEFAULT_UPTIME_CONCURRENCY: usize = 2048;

/// How long a webhook endpoint has to answer unless `PORTAL_WEBHOOK_TIMEOUT_SECS` says otherwise (issue 38:
/// "a 2xx within 10 s is success").
pub const DEFAULT_WEBHOOK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// The longest `PORTAL_WEBHOOK_TIMEOUT_SECS`: a slow endpoint holds one of its few delivery slots that long.
pub const MAX_WEBHOOK_TIMEOUT_SECS: u64 = 30;

/// The server's whole configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub bind: SocketAddr,
    pub public_url: String,
    pub database_url: String,
    /// PostgreSQL behind a pooler: where the session cache listens (`PORTAL_DATABASE_LISTEN_URL`) and
    /// whether prepared statements are kept (`PORTAL_DATABASE_PREPARED_STATEMENTS`).
    pub database_options: adapter_db::PostgresOptions,
    pub data_dir: PathBuf,
    /// Where image bytes are kept.
    pub image_store: ImageStoreConfig,
    pub frontend_dir: PathBuf,
    pub admin_emails: Vec<String>,
    pub smtp_url: Option<String>,
    pub mail_from: String,
    /// `false` leaves e-mails in the outbox for another instance to deliver (`PORTAL_MAIL_WORKER`).
    pub mail_worker: bool,
    /// `false` leaves webhook deliveries for another instance to make (`PORTAL_WEBHOOK_WORKER`).
    pub webhook_worker: bool,
    /// How long a webhook endpoint has to answer a delivery (`PORTAL_WEBHOOK_TIMEOUT_SECS`, default 10 s).
    pub webhook_timeout: std::time::Duration,
    /// `0` turns the monitor off.
    pub uptime_interval_secs: u64,
    /// Audit entries older than this many days are removed (`PORTAL_AUDIT_RETENTION_DAYS`, default 400).
    pub audit_retention_days: u32,
    /// How long a request body may take to arrive in all (`PORTAL_BODY_TIMEOUT_SECS`), and the longest
    /// pause between its bytes (`PORTAL_BODY_IDLE_TIMEOUT_SECS`); a client slower than either gets 408.
    pub body_timeouts: adapter_http::slow_clients::BodyTimeouts,
    /// Health checks in flight at once (`PORTAL_UPTIME_CONCURRENCY`).
    pub uptime_concurrency: usize,
    /// The storage quota of each organization's images, in MB (`PORTAL_ORG_IMAGE_QUOTA_MB`).
    pub org_image_quota_mb: u64,
    /// `PORTAL_ALLOW_PRIVATE_TARGETS`: the uptime monitor may check loopback and private addresses, and a
    /// loopback server URL keeps `http://` (local development and tests). Webhooks have their own setting.
    pub allow_private_targets: bool,
    /// `PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS`: webhook endpoints may be on loopback and private addresses
    /// (plain `http://` to loopback); their answers' bodies are never kept (local development and tests).
    pub webhooks_allow_private_targets: bool,
    /// "Send test" and "Retry" pressed per minute: per endpoint (`PORTAL_WEBHOOK_SENDS_PER_ENDPOINT`, default
    /// 5) and per organization (`PORTAL_WEBHOOK_SENDS_PER_ORG`, default 20).
    pub webhook_send_limits: domain::webhooks::SendLimits,
    pub demo: bool,
    pub docs_url: String,
    pub source_url: String,
    pub example_app_url: String,
    pub store_url: String,
    /// `PORTAL_COMPANION_INSTALL_URL`: the companion app's install link, a template with `{packageName}`
    /// and `{installUrl}` (see [`companion_install_url`]); unset: the tester page offers none.
    pub companion_install_url: Option<String>,
    pub secret_key: Option<String>,
    pub oauth_providers: Vec<OAuthProvider>,
    pub supabase: Option<HostedSupabase>,
    /// `PORTAL_TRUSTED_PROXIES`: proxies whose `X-Forwarded-For` names the client (default none: the
    /// socket peer is the client).
    pub trusted_proxies: TrustedProxies,
    /// `PORTAL_METRICS_TOKEN`: turns `/metrics` on, for scrapes that send it as a bearer token (off when
    /// unset).
    pub metrics_token: Option<adapter_http::metrics::MetricsToken>,
    /// The cost of password hashes: always [`HashCost::Production`] from the environment; the black-box
    /// tests set [`HashCost::TestsOnly`] on the built value.
    pub password_hashing: HashCost,
    /// `PORTAL_STAFF_MFA=required|optional` (default `required`): whether platform staff need a session
    /// that passed a second factor (`aal2`) for `/api/admin`.
    pub staff_mfa_required: bool,
    /// `PORTAL_HOSTED_MFA=off`: the hosted Supabase project has no second factors, so an `aal1` hosted
    /// session may make access tokens (with `on`, the default, only an `aal2` one may).
    pub hosted_without_factors: bool,
}

/// A variable that is set but cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{variable}: {problem}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub problem: String,
}

impl Config {
    /// The assurance rule with this deployment's settings: one value for every service that asks it.
    #[must_use]
    pub const fn assurance_rules(&self) -> domain::identity::AssuranceRules {
        domain::identity::AssuranceRules {
            staff_two_factor: self.staff_mfa_required,
            hosted_without_factors: self.hosted_without_factors,
        }
    }

    /// Reads the process environment (after loading `.env` when present).
    ///
    /// # Errors
    /// [`ConfigError`] naming the first variable whose value is unusable.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_vars(&std::env::vars().collect())
    }

    /// Reads configuration from a set of variables; unset and empty variables take their defaults.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first variable whose value is unusable.
    pub fn from_vars(vars: &HashMap<String, String>) -> Result<Self, ConfigError> {
        let get = |name: &str| {
            vars.get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let public_url = get("PORTAL_PUBLIC_URL")
            .unwrap_or_else(|| "http://127.0.0.1:8080".into())
            .trim_end_matches('/')
            .to_owned();
        let bind_text = get("PORTAL_BIND").unwrap_or_else(|| "127.0.0.1:8080".into());
        let bind = bind_text.parse().map_err(|e| ConfigError {
            variable: "PORTAL_BIND",
            problem: format!("`{bind_text}` is not an address:port ({e})"),
        })?;
        let uptime_concurrency = match get("PORTAL_UPTIME_CONCURRENCY") {
            None => DEFAULT_UPTIME_CONCURRENCY,
            Some(text) => text
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=4096).contains(n))
                .ok_or_else(|| ConfigError {
                    variable: "PORTAL_UPTIME_CONCURRENCY",
                    problem: format!("`{text}` is not a number of checks from 1 to 4096"),
                })?,
        };
        let sends = |variable: &'static str, default: u32| match get(variable) {
            None => Ok(default),
            Some(text) => text
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=100_000).contains(n))
                .ok_or_else(|| ConfigError {
                    variable,
                    problem: format!("`{text}` is not a number of sends a minute from 1 to 100000"),
                }),
        };
        let defaults = domain::webhooks::SendLimits::default();
        let webhook_send_limits = domain::webhooks::SendLimits {
            per_endpoint: sends("PORTAL_WEBHOOK_SENDS_PER_ENDPOINT", defaults.per_endpoint)?,
            per_org: sends("PORTAL_WEBHOOK_SENDS_PER_ORG", defaults.per_org)?,
            ..defaults
        };
        let org_image_quota_mb = match get("PORTAL_ORG_IMAGE_QUOTA_MB") {
            None => domain::media::service::DEFAULT_ORG_IMAGE_QUOTA_MB,
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|mb| (1..=1_000_000).contains(mb))
                .ok_or_else(|| ConfigError {
                    variable: "PORTAL_ORG_IMAGE_QUOTA_MB",
                    problem: format!("`{text}` is not a number of megabytes from 1 to 1000000"),
                })?,
        };
        let webhook_timeout = match get("PORTAL_WEBHOOK_TIMEOUT_SECS") {
            None => DEFAULT_WEBHOOK_TIMEOUT,
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|secs| (1..=MAX_WEBHOOK_TIMEOUT_SECS).contains(secs))
                .map(std::time::Duration::from_secs)
                .ok_or_else(|| ConfigError {
                    variable: "PORTAL_WEBHOOK_TIMEOUT_SECS",
                    problem: format!(
                        "`{text}` is not a number of seconds from 1 to {MAX_WEBHOOK_TIMEOUT_SECS}"
                    ),
                })?,
        };
        let audit_retention_days = match get("PORTAL_AUDIT_RETENTION_DAYS") {
            None => domain::audit::service::DEFAULT_RETENTION_DAYS,
            Some(text) => text
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|days| (1..=36_500).contains(days))
                .ok_or_else(|| ConfigError {
                    variable: "PORTAL_AUDIT_RETENTION_DAYS",
                    problem: format!("`{text}` is not a number of days from 1 to 36500"),
                })?,
        };
        let uptime_interval_secs = match get("PORTAL_UPTIME_INTERVAL_SECS") {
            None => 60,
            Some(text) => text.parse().map_err(|_| ConfigError {
                variable: "PORTAL_UPTIME_INTERVAL_SECS",
                problem: format!("`{text}` is not a whole number of seconds"),
            })?,
        };
        let seconds = |name: &'static str, default: u64| -> Result<std::time::Duration, ConfigError> {
            let secs = match get(name) {
                None => default,
                Some(text) => text.parse().ok().filter(|n| *n > 0).ok_or_else(|| ConfigError {
                    variable: name,
                    problem: format!("`{text}` is not a whole number of seconds above 0"),
                })?,
            };
            Ok(std::time::Duration::from_secs(secs))
        };
        let body_timeouts = adapter_http::slow_clients::BodyTimeouts {
            total: seconds("PORTAL_BODY_TIMEOUT_SECS", 300)?,
            idle: seconds("PORTAL_BODY_IDLE_TIMEOUT_SECS", 30)?,
        };
        let flag = |name: &'static str| -> Result<bool, ConfigError> {
            match get(name).as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("false" | "0" | "no" | "off") => Ok(false),
                Some("true" | "1" | "yes" | "on") => Ok(true),
                Some(other) => Err(ConfigError {
                    variable: name,
                    problem: format!("`{other}` is not true or false"),
                }),
            }
        };
        let oauth_providers = oauth_providers(&get)?;
        let supabase = hosted_supabase(&get)?;
        let image_store = image_store(&get)?;
        let trusted_proxies = TrustedProxies::parse(&get("PORTAL_TRUSTED_PROXIES").unwrap_or_default())
            .map_err(|problem| ConfigError {
                variable: "PORTAL_TRUSTED_PROXIES",
                problem,
            })?;
        let staff_mfa_required = match get("PORTAL_STAFF_MFA").as_deref().map(str::trim) {
            None | Some("" | "required") => true,
            Some("optional") => false,
            Some(other) => {
                return Err(ConfigError {
                    variable: "PORTAL_STAFF_MFA",
                    problem: format!("{other:?} is neither \"required\" nor \"optional\""),
                });
            }
        };
        let hosted_without_factors = match get("PORTAL_HOSTED_MFA").as_deref().map(str::trim) {
            None | Some("" | "on") => false,
            Some("off") => true,
            Some(other) => {
                return Err(ConfigError {
                    variable: "PORTAL_HOSTED_MFA",
                    problem: format!("{other:?} is neither \"on\" nor \"off\""),
                });
            }
        };
        Ok(Self {
            bind,
            trusted_proxies,
            staff_mfa_required,
            hosted_without_factors,
            password_hashing: HashCost::Production,
            store_url: get("PORTAL_STORE_URL").unwrap_or_else(|| public_url.clone()),
            companion_install_url: get("PORTAL_COMPANION_INSTALL_URL")
                .map(|template| companion_install_url(&template))
                .transpose()
                .map_err(|problem| ConfigError {
                    variable: "PORTAL_COMPANION_INSTALL_URL",
                    problem,
                })?,
            public_url,
            database_url: get("DATABASE_URL").unwrap_or_else(|| "sqlite://data/portal.db".into()),
            database_options: adapter_db::PostgresOptions {
                listen_url: get("PORTAL_DATABASE_LISTEN_URL"),
                prepared_statements: get("PORTAL_DATABASE_PREPARED_STATEMENTS").is_none()
                    || flag("PORTAL_DATABASE_PREPARED_STATEMENTS")?,
            },
            data_dir: PathBuf::from(get("PORTAL_DATA_DIR").unwrap_or_else(|| "data".into())),
            image_store,
            frontend_dir: PathBuf::from(get("PORTAL_FRONTEND_DIR").unwrap_or_else(|| "frontend/dist".into())),
            admin_emails: get("PORTAL_ADMIN_EMAILS")
                .map(|list| {
                    list.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            smtp_url: get("SMTP_URL"),
            mail_from: get("PORTAL_MAIL_FROM")
                .unwrap_or_else(|| "Developer Portal <no-reply@localhost>".into()),
            mail_worker: get("PORTAL_MAIL_WORKER").is_none() || flag("PORTAL_MAIL_WORKER")?,
            webhook_worker: get("PORTAL_WEBHOOK_WORKER").is_none() || flag("PORTAL_WEBHOOK_WORKER")?,
            webhook_timeout,
            uptime_interval_secs,
            audit_retention_days,
            body_timeouts,
            uptime_concurrency,
            org_image_quota_mb,
            allow_private_targets: flag("PORTAL_ALLOW_PRIVATE_TARGETS")?,
            webhooks_allow_private_targets: flag("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS")?,
            webhook_send_limits,
            demo: flag("PORTAL_DEMO")?,
            docs_url: get("PORTAL_DOCS_URL").unwrap_or_else(|| "https://docs.mentra.glass".into()),
            source_url: get("PORTAL_SOURCE_URL")
                .unwrap_or_else(|| "https://github.com/Mentra-Community/MentraOS".into()),
            example_app_url: get("PORTAL_EXAMPLE_APP_URL")
                .unwrap_or_else(|| "https://github.com/Mentra-Community/MentraOS-Cloud-Example-App".into()),
            secret_key: get("PORTAL_SECRET_KEY"),
            metrics_token: get("PORTAL_METRICS_TOKEN")
                .as_deref()
                .and_then(adapter_http::metrics::MetricsToken::new),
            oauth_providers,
            supabase,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staff_mfa_is_required_unless_set_optional_and_another_value_is_refused() {
        let base = [("PORTAL_PUBLIC_URL", "http://127.0.0.1:8080")];
        let with = |value: Option<&str>| {
            let mut pairs = base.to_vec();
            if let Some(value) = value {
                pairs.push(("PORTAL_STAFF_MFA", value));
            }
            Config::from_vars(&vars(&pairs))
        };
        assert!(with(None).unwrap().staff_mfa_required);
        assert!(with(Some("required")).unwrap().staff_mfa_required);
        assert!(!with(Some("optional")).unwrap().staff_mfa_required);
        assert_eq!(with(Some("off")).unwrap_err().variable, "PORTAL_STAFF_MFA");
    }

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn the_webhook_timeout_is_a_number_of_seconds_up_to_thirty() {
        let config = Config::from_vars(&vars(&[("PORTAL_WEBHOOK_TIMEOUT_SECS", "2")])).unwrap();
        assert_eq!(config.webhook_timeout, std::time::Duration::from_secs(2));
        for bad in ["0", "-1", "31", "1.5", "soon"] {
            let error = Config::from_vars(&vars(&[("PORTAL_WEBHOOK_TIMEOUT_SECS", bad)])).unwrap_err();
            assert_eq!(error.variable, "PORTAL_WEBHOOK_TIMEOUT_SECS", "{bad}");
        }
    }

    #[test]
    fn the_webhook_sends_by_hand_are_a_number_a_minute() {
        let config = Config::from_vars(&vars(&[
            ("PORTAL_WEBHOOK_SENDS_PER_ENDPOINT", "2"),
            ("PORTAL_WEBHOOK_SENDS_PER_ORG", " 9 "),
        ]))
        .unwrap();
        assert_eq!(
            (
                config.webhook_send_limits.per_endpoint,
                config.webhook_send_limits.per_org
            ),
            (2, 9)
        );
        for bad in ["0", "-1", "many", "100001"] {
            let error = Config::from_vars(&vars(&[("PORTAL_WEBHOOK_SENDS_PER_ORG", bad)])).unwrap_err();
            assert_eq!(error.variable, "PORTAL_WEBHOOK_SENDS_PER_ORG", "{bad}");
        }
    }

    #[test]
    fn private_targets_for_the_monitor_do_not_open_them_to_webhooks() {
        let monitor = Config::from_vars(&vars(&[("PORTAL_ALLOW_PRIVATE_TARGETS", "true")])).unwrap();
        assert!(monitor.allow_private_targets && !monitor.webhooks_allow_private_targets);
        let webhooks =
            Config::from_vars(&vars(&[("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true")])).unwrap();
        assert!(webhooks.webhooks_allow_private_targets && !webhooks.allow_private_targets);
        let refused = Config::from_vars(&vars(&[("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "yes please")]));
        assert_eq!(
            refused.unwrap_err().variable,
            "PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS"
        );
    }

    #[test]
    fn the_pooler_settings_default_to_a_direct_postgres() {
        let config = Config::from_vars(&vars(&[])).unwrap();
        assert_eq!(config.database_options, adapter_db::PostgresOptions::default());
        assert!(config.database_options.prepared_statements);
        let config = Config::from_vars(&vars(&[
            ("PORTAL_DATABASE_LISTEN_URL", " postgres://portal@db:5432/portal "),
            ("PORTAL_DATABASE_PREPARED_STATEMENTS", "false"),
        ]))
        .unwrap();
        assert_eq!(
            config.database_options,
            adapter_db::PostgresOptions {
                listen_url: Some("postgres://portal@db:5432/portal".into()),
                prepared_statements: false,
            }
        );
        let refused = Config::from_vars(&vars(&[("PORTAL_DATABASE_PREPARED_STATEMENTS", "sometimes")]));
        assert_eq!(
            refused.unwrap_err().variable,
            "PORTAL_DATABASE_PREPARED_STATEMENTS"
        );
    }

    #[test]
    fn the_audit_retention_is_a_number_of_days() {
        let config = Config::from_vars(&vars(&[("PORTAL_AUDIT_RETENTION_DAYS", "30")])).unwrap();
        assert_eq!(config.audit_retention_days, 30);
        for bad in ["0", "-1", "forever", "36501"] {
            let error = Config::from_vars(&vars(&[("PORTAL_AUDIT_RETENTION_DAYS", bad)])).unwrap_err();
            assert_eq!(error.variable, "PORTAL_AUDIT_RETENTION_DAYS", "{bad}");
        }
    }

    #[test]
    fn nothing_set_gives_the_documented_defaults() {
        let config = Config::from_vars(&HashMap::new()).unwrap();
        assert_eq!(config.bind.to_string(), "127.0.0.1:8080");
        assert_eq!(config.public_url, "http://127.0.0.1:8080");
        assert_eq!(config.store_url, "http://127.0.0.1:8080");
        assert_eq!(config.database_url, "sqlite://data/portal.db");
        assert_eq!(config.uptime_interval_secs, 60);
        assert_eq!(config.audit_retention_days, 400);
        assert_eq!(config.webhook_timeout, std::time::Duration::from_secs(10));
        assert!(!config.demo && !config.allow_private_targets);
        assert!(!config.webhooks_allow_private_targets);
        assert_eq!(
            (
                config.webhook_send_limits.per_endpoint,
                config.webhook_send_limits.per_org
            ),
            (5, 20)
        );
        assert!(config.oauth_providers.is_empty() && config.supabase.is_none());
        assert_eq!(config.docs_url, "https://docs.mentra.glass");
        assert_eq!(config.image_store, ImageStoreConfig::Local);
    }

    #[test]
    fn the_s3_image_store_needs_its_bucket_and_keys_in_pairs() {
        let config = Config::from_vars(&vars(&[
            ("PORTAL_IMAGE_STORE", "S3"),
            ("PORTAL_S3_BUCKET", "portal-images"),
            ("PORTAL_S3_ENDPOINT", "http://127.0.0.1:9000/"),
            ("PORTAL_S3_ACCESS_KEY_ID", "id"),
            ("PORTAL_S3_SECRET_ACCESS_KEY", "very-secret"),
        ]))
        .unwrap();
        let ImageStoreConfig::S3(settings) = &config.image_store else {
            panic!("expected S3: {:?}", config.image_store)
        };
        assert_eq!(settings.bucket, "portal-images");
        assert_eq!(settings.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(settings.region, "us-east-1");
        assert!(!format!("{config:?}").contains("very-secret"));

        let aws = Config::from_vars(&vars(&[
            ("PORTAL_IMAGE_STORE", "s3"),
            ("PORTAL_S3_BUCKET", "b"),
            ("PORTAL_S3_REGION", "eu-west-3"),
        ]))
        .unwrap();
        assert!(
            matches!(&aws.image_store, ImageStoreConfig::S3(s) if s.endpoint.is_none() && s.region == "eu-west-3")
        );

        for (bad, variable) in [
            (vec![("PORTAL_IMAGE_STORE", "s3")], "PORTAL_S3_BUCKET"),
            (vec![("PORTAL_IMAGE_STORE", "ftp")], "PORTAL_IMAGE_STORE"),
            (vec![("PORTAL_S3_BUCKET", "b")], "PORTAL_IMAGE_STORE"),
            (
                vec![
                    ("PORTAL_IMAGE_STORE", "s3"),
                    ("PORTAL_S3_BUCKET", "b"),
                    ("PORTAL_S3_ENDPOINT", "minio:9000"),
                ],
                "PORTAL_S3_ENDPOINT",
            ),
            (
                vec![
                    ("PORTAL_IMAGE_STORE", "s3"),
                    ("PORTAL_S3_BUCKET", "b"),
                    ("PORTAL_S3_ACCESS_KEY_ID", "id"),
                ],
                "PORTAL_S3_ACCESS_KEY_ID",
            ),
        ] {
            assert_eq!(
                Config::from_vars(&vars(&bad)).unwrap_err().variable,
                variable,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_companion_install_link_is_a_checked_template_and_off_unless_set() {
        assert_eq!(Config::from_vars(&vars(&[])).unwrap().companion_install_url, None);
        let template = "mentra://install?package={packageName}&link={installUrl}";
        let config = Config::from_vars(&vars(&[("PORTAL_COMPANION_INSTALL_URL", template)])).unwrap();
        assert_eq!(config.companion_install_url.as_deref(), Some(template));
        for bad in [
            "install/{packageName}",
            "javascript:alert('{installUrl}')",
            "DATA:text/html,{installUrl}",
            "https://x.example/{packageName} now",
            "https://x.example/{user}/{packageName}",
            "https://x.example/install",
        ] {
            let err = Config::from_vars(&vars(&[("PORTAL_COMPANION_INSTALL_URL", bad)])).unwrap_err();
            assert_eq!(err.variable, "PORTAL_COMPANION_INSTALL_URL", "{bad}");
        }
    }

    #[test]
    fn the_store_url_follows_the_public_url_unless_set() {
        let config =
            Config::from_vars(&vars(&[("PORTAL_PUBLIC_URL", "https://portal.example.com/")])).unwrap();
        assert_eq!(config.public_url, "https://portal.example.com");
        assert_eq!(config.store_url, "https://portal.example.com");
    }

    #[test]
    fn admin_emails_are_split_on_commas() {
        let config = Config::from_vars(&vars(&[("PORTAL_ADMIN_EMAILS", " a@x.io, ,b@y.io ")])).unwrap();
        assert_eq!(config.admin_emails, ["a@x.io", "b@y.io"]);
    }

    #[test]
    fn an_unusable_bind_address_names_its_variable() {
        let error = Config::from_vars(&vars(&[("PORTAL_BIND", "localhost")])).unwrap_err();
        assert_eq!(error.variable, "PORTAL_BIND");
    }

    #[test]
    fn a_flag_must_be_true_or_false() {
        assert!(Config::from_vars(&vars(&[("PORTAL_DEMO", "TRUE")])).unwrap().demo);
        assert_eq!(
            Config::from_vars(&vars(&[("PORTAL_DEMO", "maybe")]))
                .unwrap_err()
                .variable,
            "PORTAL_DEMO"
        );
    }

    #[test]
    fn a_provider_needs_all_three_variables() {
        let partial = vars(&[("PORTAL_OAUTH_GOOGLE_ISSUER", "https://accounts.example.com")]);
        assert!(Config::from_vars(&partial).is_err());
        let full = vars(&[
            ("PORTAL_OAUTH_GOOGLE_ISSUER", "https://accounts.example.com"),
            ("PORTAL_OAUTH_GOOGLE_CLIENT_ID", "id"),
            ("PORTAL_OAUTH_GOOGLE_CLIENT_SECRET", "secret"),
        ]);
        let config = Config::from_vars(&full).unwrap();
        assert_eq!(config.oauth_providers[0].name, "google");
    }

    #[test]
    fn request_bodies_get_five_minutes_with_pauses_of_thirty_seconds_unless_configured() {
        let config = Config::from_vars(&HashMap::new()).unwrap();
        assert_eq!(config.body_timeouts.total, std::time::Duration::from_secs(300));
        assert_eq!(config.body_timeouts.idle, std::time::Duration::from_secs(30));
        let set = Config::from_vars(&vars(&[("PORTAL_BODY_TIMEOUT_SECS", "900")])).unwrap();
        assert_eq!(set.body_timeouts.total, std::time::Duration::from_secs(900));
        let error = Config::from_vars(&vars(&[("PORTAL_BODY_IDLE_TIMEOUT_SECS", "0")])).unwrap_err();
        assert_eq!(error.variable, "PORTAL_BODY_IDLE_TIMEOUT_SECS");
    }

    #[test]
    fn trusted_proxies_default_to_none_and_bad_entries_name_the_variable() {
        let config = Config::from_vars(&HashMap::new()).unwrap();
        assert_eq!(config.trusted_proxies, TrustedProxies::default());
        assert_eq!(config.password_hashing, HashCost::Production);
        let set = Config::from_vars(&vars(&[("PORTAL_TRUSTED_PROXIES", "10.0.0.0/8, ::1")])).unwrap();
        assert_eq!(
            set.trusted_proxies,
            TrustedProxies::parse("10.0.0.0/8,::1").unwrap()
        );
        let error = Config::from_vars(&vars(&[("PORTAL_TRUSTED_PROXIES", "proxy.internal")])).unwrap_err();
        assert_eq!(error.variable, "PORTAL_TRUSTED_PROXIES");
    }

    #[test]
    fn the_uptime_interval_must_be_a_number() {
        assert_eq!(
            Config::from_vars(&vars(&[("PORTAL_UPTIME_INTERVAL_SECS", "0")]))
                .unwrap()
                .uptime_interval_secs,
            0
        );
        assert!(Config::from_vars(&vars(&[("PORTAL_UPTIME_INTERVAL_SECS", "soon")])).is_err());
        assert_eq!(
            Config::from_vars(&vars(&[])).unwrap().uptime_concurrency,
            DEFAULT_UPTIME_CONCURRENCY
        );
        assert_eq!(
            Config::from_vars(&vars(&[("PORTAL_UPTIME_CONCURRENCY", "8")]))
                .unwrap()
                .uptime_concurrency,
            8
        );
        for bad in ["0", "many", "100000"] {
            assert!(Config::from_vars(&vars(&[("PORTAL_UPTIME_CONCURRENCY", bad)])).is_err());
        }
    }

    #[test]
    fn the_image_quota_is_a_number_of_megabytes_and_100_unless_set() {
        assert_eq!(Config::from_vars(&vars(&[])).unwrap().org_image_quota_mb, 100);
        assert_eq!(
            Config::from_vars(&vars(&[("PORTAL_ORG_IMAGE_QUOTA_MB", "250")]))
                .unwrap()
                .org_image_quota_mb,
            250
        );
        for bad in ["0", "lots", "-5"] {
            let error = Config::from_vars(&vars(&[("PORTAL_ORG_IMAGE_QUOTA_MB", bad)])).unwrap_err();
            assert_eq!(error.variable, "PORTAL_ORG_IMAGE_QUOTA_MB");
        }
    }

    const SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";

    #[test]
    fn a_hosted_supabase_with_its_secret_verifies_hs256_only() {
        let config = Config::from_vars(&vars(&[
            ("SUPABASE_URL", "https://project.supabase.co/"),
            ("SUPABASE_ANON_KEY", "anon"),
            ("SUPABASE_JWT_SECRET", SECRET),
        ]))
        .unwrap();
        let hosted = config.supabase.unwrap();
        assert_eq!(hosted.url, "https://project.supabase.co");
        assert_eq!(hosted.auth_url(), "https://project.supabase.co/auth/v1");
        assert_eq!(hosted.jwt_secret.as_deref(), Some(SECRET));
        assert_eq!(hosted.jwks_url, None);
        assert!(!format!("{hosted:?}").contains(SECRET));
    }

    #[test]
    fn without_a_secret_the_projects_jwks_is_used() {
        let config = Config::from_vars(&vars(&[
            ("SUPABASE_URL", "https://project.supabase.co"),
            ("SUPABASE_ANON_KEY", "anon"),
        ]))
        .unwrap();
        let hosted = config.supabase.unwrap();
        assert_eq!(hosted.jwt_secret, None);
        assert_eq!(
            hosted.jwks_url.as_deref(),
            Some("https://project.supabase.co/auth/v1/.well-known/jwks.json")
        );
        let both = Config::from_vars(&vars(&[
            ("SUPABASE_URL", "https://project.supabase.co"),
            ("SUPABASE_ANON_KEY", "anon"),
            ("SUPABASE_JWT_SECRET", SECRET),
            ("SUPABASE_JWKS_URL", "http://127.0.0.1:9999/keys.json"),
        ]))
        .unwrap()
        .supabase
        .unwrap();
        assert_eq!(both.jwks_url.as_deref(), Some("http://127.0.0.1:9999/keys.json"));
        assert!(both.jwt_secret.is_some());
    }

    #[test]
    fn a_hosted_supabase_needs_its_url_and_anon_key_and_usable_values() {
        for partial in [
            vec![("SUPABASE_URL", "https://project.supabase.co")],
            vec![("SUPABASE_ANON_KEY", "anon")],
            vec![("SUPABASE_JWT_SECRET", SECRET)],
            vec![("SUPABASE_JWKS_URL", "https://project.supabase.co/keys")],
        ] {
            assert_eq!(
                Config::from_vars(&vars(&partial)).unwrap_err().variable,
                "SUPABASE_*"
            );
        }
        let bad_url = vars(&[
            ("SUPABASE_URL", "project.supabase.co"),
            ("SUPABASE_ANON_KEY", "anon"),
        ]);
        assert_eq!(Config::from_vars(&bad_url).unwrap_err().variable, "SUPABASE_URL");
        let short = vars(&[
            ("SUPABASE_URL", "https://project.supabase.co"),
            ("SUPABASE_ANON_KEY", "anon"),
            ("SUPABASE_JWT_SECRET", "short"),
        ]);
        assert_eq!(
            Config::from_vars(&short).unwrap_err().variable,
            "SUPABASE_JWT_SECRET"
        );
        let bad_jwks = vars(&[
            ("SUPABASE_URL", "https://project.supabase.co"),
            ("SUPABASE_ANON_KEY", "anon"),
            ("SUPABASE_JWKS_URL", "file:///etc/keys"),
        ]);
        assert_eq!(
            Config::from_vars(&bad_jwks).unwrap_err().variable,
            "SUPABASE_JWKS_URL"
        );
    }
}
