//! `GET /auth/v1/settings`: which sign-in methods this server offers (Supabase's shape).

use actix_web::{HttpResponse, web};
use serde_json::json;

use super::IdentityApi;

pub async fn settings(api: web::Data<IdentityApi>) -> HttpResponse {
    let on = |name: &str| api.providers.iter().any(|p| p == name);
    let config = api.service.config();
    HttpResponse::Ok().json(json!({
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
    }))
}
