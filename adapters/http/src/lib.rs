//! The HTTP adapter: routes, the JSON error envelope of PRODUCT.md §6, security headers and the built
//! web UI (with the single-page-app fallback).

pub mod admin;
pub mod apps;
pub mod audit;
pub mod auth;
pub mod client_ip;
pub mod domain_errors;
pub mod error;
pub mod headers;
pub mod identity;
pub mod images;
pub mod json;
pub mod metrics;
pub mod oauth;
pub mod openapi;
pub mod orgs;
pub mod public_config;
pub mod request_log;
pub mod route_sink;
pub mod slow_clients;
pub mod spa;
pub mod system;
pub mod tokens;
pub mod uptime;
pub mod webhooks;

use actix_web::web;

pub use route_sink::RouteSink;

pub use error::ApiError;
pub use public_config::PublicConfig;

/// Everything the handlers need, shared across workers.
#[derive(Debug, Clone)]
pub struct HttpState {
    pub public_config: PublicConfig,
    /// The built-in identity service (`/auth/v1`); `None` with a hosted Supabase.
    pub identity: Option<identity::IdentityApi>,
    /// Authentication of the product API.
    pub auth: auth::ProductAuth,
    /// Memberships, for the `x-org-id` check of org-scoped requests ([`auth::OrgScope`]).
    pub memberships: auth::Memberships,
    /// The first-admin setup link (`POST /api/admin/setup`) and the waiting-role hint of `/api/admin/check`.
    pub first_admin: auth::setup::FirstAdminApi,
    /// The platform-admin calls: review, platform users, maintenance (`/api/admin`).
    pub admin: admin::AdminApi,
    /// Organizations, members and invitations.
    pub orgs: orgs::OrgsApi,
    /// The image use cases (`/api/dev/images`, `/api/images`).
    pub images: images::ImagesApi,
    /// The uptime views and the staff ping (`/api/app-uptime`).
    pub uptime: uptime::UptimeApi,
    /// Apps, their keys, sharing and review history (`/api/dev/apps`, `/api/permissions`, `/api/install`).
    pub apps: apps::AppsApi,
    /// The audit logs of organizations and of the platform.
    pub audit: audit::AuditApi,
    /// Personal access tokens (`/api/dev/tokens`, `/api/orgs/{orgId}/tokens`).
    pub tokens: tokens::TokensApi,
    /// Webhook endpoints and deliveries (`/api/orgs/{orgId}/webhooks`).
    pub webhooks: webhooks::WebhooksApi,
    /// Whether the database answers (`/readyz`).
    pub readiness: system::ReadinessCheck,
    /// `/metrics`, when `PORTAL_METRICS_TOKEN` turns it on.
    pub metrics: metrics::MetricsRoute,
}

/// Registers every route: the product API under `/api`, operational endpoints, and the web UI.
pub fn configure(state: HttpState, frontend_dir: std::path::PathBuf) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        if let Some(identity) = state.identity.clone() {
            cfg.configure(identity::configure(identity));
        } else {
            // A hosted identity service: nothing of `/auth/v1` is served here (not even the web UI).
            cfg.service(web::scope("/auth/v1").default_service(web::to(system::api_not_found)));
        }
        cfg.app_data(web::Data::new(state.public_config.clone()))
            .app_data(web::Data::new(state.auth.clone()))
            .app_data(web::Data::new(state.memberships.clone()))
            .app_data(web::Data::new(state.first_admin.clone()))
            .app_data(web::Data::new(state.images.clone()))
            .app_data(error::json_config())
            .app_data(error::query_config())
            .app_data(error::path_config())
            .app_data(web::Data::new(state.readiness.clone()))
            .app_data(web::Data::new(state.metrics.clone()))
            .app_data(web::Data::new(state.admin.clone()))
            .app_data(web::Data::new(state.orgs.clone()))
            .app_data(web::Data::new(state.uptime.clone()))
            .app_data(web::Data::new(state.apps.clone()))
            .app_data(web::Data::new(state.audit.clone()))
            .app_data(web::Data::new(state.tokens.clone()))
            .app_data(web::Data::new(state.webhooks.clone()))
            .route("/api/openapi.json", web::get().to(openapi::served))
            .service(
                utoipa_swagger_ui::SwaggerUi::new("/api/docs/{_:.*}")
                    .config(utoipa_swagger_ui::Config::from("/api/openapi.json")),
            )
            .route("/api/docs", web::get().to(openapi_docs_redirect));
        documented_routes(cfg);
        cfg.configure(spa::configure(frontend_dir));
    }
}

/// The routes of the OpenAPI document: the operational endpoints and the product API under `/api`. Each path
/// is written once, in its handler's route attribute. The server registers them on actix-web's own
/// `ServiceConfig`, and [`openapi::document`] is collected from this same registration (on utoipa-actix-web's),
/// so that a route cannot be served without being described.
pub fn documented_routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(system::healthz)
        .service(system::readyz)
        .service(metrics::render)
        .scope("/api", system::method_not_allowed, |api| {
            api.service(public_config::get)
                .configure(auth::routes)
                // Before the admin routes: `/admin/audit-log` is not one of theirs.
                .configure(audit::routes)
                .configure(admin::routes)
                .configure(tokens::routes)
                .configure(webhooks::routes)
                .configure(orgs::routes)
                .configure(images::routes)
                .configure(uptime::routes)
                .configure(apps::routes)
                .default_service(web::to(system::api_not_found));
        });
}

/// `/api/docs` → `/api/docs/` (the Swagger UI's own path).
async fn openapi_docs_redirect() -> actix_web::HttpResponse {
    actix_web::HttpResponse::PermanentRedirect()
        .insert_header(("Location", "/api/docs/"))
        .finish()
}
