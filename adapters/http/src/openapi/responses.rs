//! The responses the document adds to every route of a kind, written once here instead of on each handler:
//! the shared refusals (400, 401, 403, 404, 408, 409, 413, 415) and the 503 of an unreachable database.

use utoipa::Modify;

use super::{BODY_REFUSED, operations_of};

/// The statuses every route of a kind answers, declared here once instead of on each handler. Each is added
/// only where the handler does not document that status itself (its own wording is more precise):
/// - a route with a JSON body: 400 ([`BODY_REFUSED`]), 408 (the body arrived too slowly), 413 (over the
///   size limit), 415 (not `application/json`);
/// - a route with path, query or header parameters: 400 (a parameter that cannot be read);
/// - an organization-scoped route (it takes the `x-org-id` header): 400 `ORG_REQUIRED` and 403 (not a member,
///   or `ORG_MFA_REQUIRED`), and 404 when it names an app (`packageName`) the organization does not have;
/// - a route naming an organization in its path (`orgId`): 403 when `x-org-id` names another one, or
///   `ORG_MFA_REQUIRED` (PRODUCT.md §1a: the organization requires a second factor);
/// - a route behind the bearer scheme: 401, 403 `MFA_REQUIRED` (an account with a second factor on a session
///   that has not passed it) and 409 `EMAIL_IN_USE` (a hosted identity whose e-mail another local account has).
pub(super) struct SharedRefusals;

impl SharedRefusals {
    fn add(operation: &mut utoipa::openapi::path::Operation, status: &str, description: &str) {
        use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| {
                RefOr::T(
                    ResponseBuilder::new()
                        .description(description)
                        .content(
                            "application/json",
                            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
                        )
                        .build(),
                )
            });
    }
}

impl Modify for SharedRefusals {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::path::ParameterIn;
        for item in openapi.paths.paths.values_mut() {
            for operation in operations_of(item) {
                if operation.request_body.is_some() {
                    Self::add(operation, "400", BODY_REFUSED);
                    Self::add(
                        operation,
                        "408",
                        "The body arrived too slowly (`REQUEST_TIMEOUT`)",
                    );
                    Self::add(
                        operation,
                        "413",
                        "The body is over the size limit (`PAYLOAD_TOO_LARGE`)",
                    );
                    Self::add(
                        operation,
                        "415",
                        "The body is not sent as `application/json` (`UNSUPPORTED_MEDIA_TYPE`)",
                    );
                }
                let parameters = operation.parameters.as_deref().unwrap_or_default();
                let has_parameters = parameters
                    .iter()
                    .any(|p| matches!(p, RefOr::T(p) if p.parameter_in != ParameterIn::Header));
                let org_scoped = parameters.iter().any(|p| {
                    matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Header
                        && p.name.eq_ignore_ascii_case("x-org-id"))
                });
                let org_in_path = parameters.iter().any(
                    |p| matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Path && p.name == "orgId"),
                );
                let names_app = parameters.iter().any(|p| {
                    matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Path && p.name == "packageName")
                });
                let unreadable = match (org_scoped, has_parameters) {
                    (true, true) => Some(
                        "x-org-id missing or malformed (`ORG_REQUIRED`), or a path or query parameter cannot \
                         be read (`INVALID_PATH`, `INVALID_QUERY`)",
                    ),
                    (true, false) => Some("x-org-id missing or malformed (`ORG_REQUIRED`)"),
                    (false, true) => {
                        Some("A path or query parameter cannot be read (`INVALID_PATH`, `INVALID_QUERY`)")
                    }
                    (false, false) => None,
                };
                if let Some(description) = unreadable {
                    Self::add(operation, "400", description);
                }
                if org_scoped {
                    Self::add(
                        operation,
                        "403",
                        "Not a member of the x-org-id organization, or it requires a second factor this \
                         session has not passed (`ORG_MFA_REQUIRED`)",
                    );
                }
                if org_scoped && names_app {
                    Self::add(operation, "404", "The organization has no such app");
                }
                if org_in_path {
                    Self::add(
                        operation,
                        "403",
                        "The x-org-id header names another organization than the path, or the organization \
                         requires a second factor this session has not passed (`ORG_MFA_REQUIRED`)",
                    );
                }
                if operation.security.as_ref().is_some_and(|s| !s.is_empty()) {
                    Self::add(operation, "401", "Not signed in");
                    Self::add(
                        operation,
                        "409",
                        "The e-mail of a hosted identity belongs to another local account (`EMAIL_IN_USE`)",
                    );
                    Self::add(
                        operation,
                        "403",
                        "The account has a second factor and this session has not passed it (`MFA_REQUIRED`); \
                         a personal access token may not be used here (`TOKEN_NOT_ALLOWED`), lacks the scope \
                         (`TOKEN_SCOPE_MISSING`) or is bound to another organization (`TOKEN_OUTSIDE_ITS_ORG`)",
                    );
                }
            }
        }
    }
}

/// The 503 every product call can answer while the database cannot be reached, written once here rather
/// than on each handler: `DATABASE_UNAVAILABLE` with `Retry-After` (seconds).
pub(super) struct DatabaseUnavailable;

impl Modify for DatabaseUnavailable {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder, header::HeaderBuilder};
        let response = ResponseBuilder::new()
            .description(
                "The database cannot be reached (`DATABASE_UNAVAILABLE`); try again after `Retry-After`",
            )
            .header(
                "Retry-After",
                HeaderBuilder::new()
                    .schema(Some(ObjectBuilder::new().schema_type(Type::Integer)))
                    .description(Some("Seconds to wait before trying again"))
                    .build(),
            )
            .content(
                "application/json",
                Content::new(Some(Ref::from_schema_name("ErrorBody"))),
            )
            .build();
        for (path, item) in &mut openapi.paths.paths {
            if !path.starts_with("/api") {
                continue;
            }
            for operation in operations_of(item) {
                operation
                    .responses
                    .responses
                    .entry("503".to_owned())
                    .or_insert_with(|| RefOr::T(response.clone()));
            }
        }
    }
}
