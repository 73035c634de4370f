//! `GET /api/public-config`: what the browser needs before anything else — the links of the landing page
//! and which identity service and sign-in providers are on.

use actix_web::get;
use actix_web::{HttpResponse, web};
use serde::Serialize;
use utoipa::ToSchema;

/// Which identity service signs people in.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum IdentityKind {
    /// This server's own `/auth/v1`.
    Builtin,
    /// A hosted Supabase project.
    Hosted,
}

/// Where the browser's identity client talks to, and with which public key.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityConfig {
    /// `builtin` (this server's `/auth/v1`) or `hosted` (a hosted Supabase).
    pub kind: IdentityKind,
    /// The project URL to give `createClient` of `@supabase/supabase-js` (it appends `/auth/v1`): this
    /// server's public URL for the built-in service, the project URL for a hosted Supabase.
    pub url: String,
    /// The auth API itself (`url` + `/auth/v1`), for a bare `AuthClient`.
    pub auth_url: String,
    /// The public anonymous-role key the client sends.
    pub anon_key: String,
}

/// The public configuration, served as is.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicConfig {
    pub docs_url: String,
    pub source_url: String,
    pub example_app_url: String,
    /// Sign-in providers configured on this server (`google`, `apple`, `github`, `azure`).
    pub providers: Vec<String>,
    pub identity: IdentityConfig,
    /// Whether a server URL typed as `http://` on a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`) is
    /// kept as typed instead of being upgraded to `https://`: on for local development
    /// (`PORTAL_ALLOW_PRIVATE_TARGETS`), off otherwise.
    pub keep_loopback_http: bool,
    /// Seconds between two rounds of the uptime monitor (`PORTAL_UPTIME_INTERVAL_SECS`; 0: the monitor is
    /// off). The App Status screens refresh at this pace.
    pub monitor_interval_secs: u64,
    /// The companion app's install link for the tester page (`PORTAL_COMPANION_INSTALL_URL`): a template
    /// whose `{packageName}` and `{installUrl}` the page replaces with the URL-encoded values; `null` when
    /// not configured (the page then offers no such button).
    #[schema(
        required = true,
        example = "mentra://install?package={packageName}&link={installUrl}"
    )]
    pub companion_install_url: Option<String>,
    /// The origin a page must be opened at for passkeys to work (their WebAuthn relying party): the public
    /// URL's, or `http://localhost:<port>` when the public URL is a loopback address (browsers refuse an IP
    /// address as a passkey's site); `null` when this server serves no passkeys (a hosted Supabase, or
    /// another IP address as its public URL).
    #[schema(required = true, example = "http://localhost:8080")]
    pub passkey_origin: Option<String>,
    /// Whether this server sends e-mail (`SMTP_URL` set, or a hosted identity service, which sends its
    /// own). Without it the links an e-mail would carry (sign-in link, password reset, confirmation) are
    /// written to the server's log, and the sign-in forms say so instead of "check your email".
    pub mail_sent: bool,
}

/// `GET /api/public-config`.
#[utoipa::path(tag = "system", responses((status = 200, description = "Links, identity service and sign-in providers", body = PublicConfig)))]
#[get("/public-config")]
pub async fn get(config: web::Data<PublicConfig>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-cache"))
        .json(config.get_ref())
}
