//! The answers whose type lives only in the HTTP adapter (an actix-web crate a client should not link):
//! the client reads them as JSON by the field names of the served OpenAPI document, and names here every
//! field it reads, by schema. `tests/cli.rs` checks each pair against `/api/openapi.json`, so a renamed
//! field fails a test instead of a user's script. Apps, the register and update bodies and the import
//! summary are the domain's own serde types (`domain::apps`), not read here.

use serde_json::Value;

macro_rules! schemas {
    ($($module:ident = $schema:literal { $($name:ident = $field:literal),* $(,)? })*) => {
        $(
            pub mod $module {
                pub const SCHEMA: &str = $schema;
                $(pub const $name: &str = $field;)*
            }
        )*
        /// Every (schema, field) the client reads.
        pub const READ: &[(&str, &str)] = &[$($(($schema, $field),)*)*];
    };
}

schemas! {
    error_body = "ErrorBody" { ERROR = "error", CODE = "code", FIELDS = "fields" }
    me = "MeResponse" { ID = "id", EMAIL = "email", DISPLAY_NAME = "displayName", PLATFORM_ROLE = "platformRole" }
    org_list = "OrgListDto" { DATA = "data" }
    org_summary = "OrgSummaryDto" { ID = "id", NAME = "name", ROLE = "role" }
    org = "OrgDto" { ID = "id", NAME = "name", ROLE = "role", PROFILE = "profile", MEMBERS = "members" }
    profile = "ProfileDto" { CONTACT_EMAIL = "contactEmail", WEBSITE = "website" }
    member = "MemberDto" { USER = "user", ROLE = "role" }
    member_user = "MemberUserDto" { EMAIL = "email" }
    registered = "RegisteredDto" { API_KEY = "apiKey", APP = "app" }
    api_key = "ApiKeyDto" { API_KEY = "apiKey" }
    permissions = "PermissionsDto" { PERMISSIONS = "permissions" }
}

/// The `{success, data}` envelope of the organization calls (`Envelope<T>` in the HTTP adapter).
pub const ENVELOPE_DATA: &str = "data";

/// A text field of an answer, or "" when it is missing or not text.
#[must_use]
pub fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value.get(field).and_then(Value::as_str).unwrap_or_default()
}
