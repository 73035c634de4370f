//! `GET /auth/v1/settings`: which sign-in methods this server offers (Supabase's shape).

use actix_web::{HttpResponse, web};
use domain::identity::IdentityConfig;
use serde_json::{Value, json};

use super::IdentityApi;

pub async fn settings(api: web::Data<IdentityApi>) -> HttpResponse {
    HttpResponse::Ok().json(offered(&api.providers, api.services.issuer.config()))
}

/// The sign-in methods offered, with the sign-in providers configured.
fn offered(providers: &[String], config: &IdentityConfig) -> Value {
    let on = |name: &str| providers.iter().any(|p| p == name);
    json!({
        "external": {
            "email": true,
            "phone": false,
            "anonymous_users": false,
            "google": on("google"),
            "apple": on("apple"),
            "github": on("github"),
            "azure": on("azure"),
        },
        "disable_signup": !config.signups_enabled,
        "mailer_autoconfirm": !config.require_email_confirmation,
        "phone_autoconfirm": false,
        "sms_provider": "",
        "saml_enabled": false,
    })
}
