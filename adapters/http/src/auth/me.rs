//! `GET /api/dev/auth/me` and `PUT /api/dev/auth/profile`: the signed-in user.

use actix_web::{HttpResponse, web};
use actix_web::{get, put};
use chrono::{DateTime, Utc};
use domain::common::Caller;
use domain::identity::{ProfileChange, UserRecord};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::{Principal, ProductAuth, RoleName};
use crate::ApiError;
use crate::json::Json;

/// The signed-in user.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeResponse {
    pub id: String,
    pub email: String,
    pub display_name: Option<String>,
    /// Free-form profile data (the identity service's `user_metadata`).
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    pub profile: Value,
    pub email_confirmed: bool,
    /// `email` and/or linked sign-in providers.
    pub providers: Vec<String>,
    pub created_at: Option<DateTime<Utc>>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    pub is_admin: bool,
    /// `admin`, `reviewer`, or `null`.
    #[schema(required = true)]
    pub platform_role: Option<RoleName>,
}

impl MeResponse {
    fn of(caller: &Caller, user: Option<&UserRecord>) -> Self {
        let base = Self {
            id: caller.user_id.to_string(),
            email: caller.email.as_str().to_owned(),
            display_name: None,
            profile: Value::Object(Map::new()),
            email_confirmed: false,
            providers: Vec::new(),
            created_at: None,
            last_sign_in_at: None,
            is_admin: caller.platform_role.is_some(),
            platform_role: caller.platform_role.map(RoleName::from),
        };
        let Some(user) = user else { return base };
        let account = &user.account;
        Self {
            display_name: account.display_name.clone(),
            profile: account.profile.clone(),
            email_confirmed: account.is_confirmed(),
            providers: user.providers(),
            created_at: Some(account.created_at),
            last_sign_in_at: account.last_sign_in_at,
            ..base
        }
    }
}

/// # Errors
/// 401 without a valid session or when the account is gone.
/// The signed-in user.
#[utoipa::path(tag = "auth", security(("bearer" = []), ("accessToken" = [])),
    responses(
        (status = 200, description = "The signed-in user", body = MeResponse),
        (status = 401, description = "No valid core token or identity access token", body = crate::openapi::ErrorBody),
    ))]
#[get("/dev/auth/me")]
pub async fn me(auth: web::Data<ProductAuth>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let user = match &auth.identity {
        Some(identity) => Some(identity.account.account_of(&principal.0).await?),
        None => None,
    };
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(MeResponse::of(&principal.0, user.as_ref())))
}

fn field_error(field: &str, message: &str) -> ApiError {
    ApiError::Validation {
        message: message.to_owned(),
        fields: BTreeMap::from([(field.to_owned(), message.to_owned())]),
    }
}

/// The change a profile body asks for; an unknown member or one of the wrong type is refused by name.
fn profile_change(body: &Map<String, Value>) -> Result<ProfileChange<'_>, ApiError> {
    let mut change = ProfileChange::default();
    for (key, value) in body {
        match (key.as_str(), value) {
            ("displayName", Value::Null) => change.display_name = Some(None),
            ("displayName", Value::String(name)) => change.display_name = Some(Some(name)),
            ("displayName", _) => return Err(field_error("displayName", "Display name must be text")),
            ("profile", Value::Object(_)) => change.profile = Some(value),
            ("profile", _) => return Err(field_error("profile", "Profile must be a JSON object")),
            (other, _) => return Err(field_error(other, "Unknown field")),
        }
    }
    Ok(change)
}

/// Body: `{"displayName"?: string | null, "profile"?: object}` (profile keys merge; a `null` value removes
/// its key).
///
/// # Errors
/// 400 `VALIDATION` for another field or a wrong type, a too long name or a too large profile; 401; 409 with a hosted
/// identity service (profiles live there).
/// The body of `PUT /api/dev/auth/profile`. No type is deserialised (the handler reads the fields one by one
/// so that an unknown field is refused by name): this is the body's schema, never a value.
#[derive(Debug)]
pub enum ProfileUpdate {}

impl utoipa::PartialSchema for ProfileUpdate {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, SchemaType, Type};
        let nullable_string = SchemaType::from_iter([Type::String, Type::Null]);
        ObjectBuilder::new()
            .property(
                "displayName",
                ObjectBuilder::new()
                    .schema_type(nullable_string)
                    .description(Some("The display name; `null` removes it.")),
            )
            .property(
                "profile",
                ObjectBuilder::new()
                    .schema_type(Type::Object)
                    .description(Some("Profile keys to merge; a `null` value removes its key.")),
            )
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl utoipa::ToSchema for ProfileUpdate {}

/// Changes the signed-in user's display name or profile.
#[utoipa::path(tag = "auth", security(("bearer" = [])), request_body = ProfileUpdate,
    responses(
        (status = 200, description = "The updated user", body = MeResponse),
        (status = 401, description = "No valid core token or identity access token", body = crate::openapi::ErrorBody),
        (status = 409, description = "Profiles are managed by a hosted identity service", body = crate::openapi::ErrorBody),
        (status = 400, description = "A field is unknown or of the wrong type (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
    ))]
#[put("/dev/auth/profile")]
pub async fn update_profile(
    auth: web::Data<ProductAuth>,
    principal: Principal,
    body: Json<Map<String, Value>>,
) -> Result<HttpResponse, ApiError> {
    let Some(identity) = &auth.identity else {
        return Err(ApiError::conflict(
            "PROFILE_MANAGED_ELSEWHERE",
            "Profiles are managed by the hosted identity service.",
        ));
    };
    let user = identity
        .account
        .update_profile(&principal.0, profile_change(&body)?)
        .await?;
    Ok(HttpResponse::Ok().json(MeResponse::of(&principal.0, Some(&user))))
}
