//! The OpenAPI document of the product API, generated from the handlers' annotations: served at
//! `/api/openapi.json`, browsable at `/api/docs`, and printed by `app-server openapi` (from which the
//! frontend's API types are generated). The paths are collected from the registration of the routes
//! ([`crate::documented_routes`], on utoipa-actix-web's `ServiceConfig` here while the server registers them
//! on actix-web's own), each written once in its handler's route attribute.

mod bodies;
mod responses;

use serde::Serialize;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

use self::bodies::{RequiredAtRegistration, TextRule};
use self::responses::{DatabaseUnavailable, SharedRefusals};

/// The error envelope every error answers (PRODUCT.md §6): the type the errors are serialised as.
pub type ErrorBody = crate::error::Envelope<'static>;

/// `GET /healthz`'s and `GET /readyz`'s body.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: &'static str,
}

impl Health {
    /// The one answer: the process (or the database) is up.
    pub const OK: Self = Self { status: "ok" };
}

/// The name of the bearer security scheme (a core token, or an identity access token as fallback).
pub const BEARER: &str = "bearer";
/// The name of the personal access token's security scheme: an operation that lists it takes a token, with
/// the scope it names (none: any token) — the one declaration `auth::token_routes` reads.
pub const ACCESS_TOKEN: &str = "accessToken";

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "The core token from POST /api/auth/exchange-token, or an identity access token.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            ACCESS_TOKEN,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("dpt_…")
                    .description(Some(
                        "A personal access token (`dpt_…`, POST /api/dev/tokens), sent as a bearer token. Only the \
                         operations that list this scheme take one, with the scope they name (`apps:read`, \
                         `apps:write`, `apps:publish`, `apps:keys`; none listed: any token); every other operation \
                         answers 403 `TOKEN_NOT_ALLOWED` to a token.",
                    ))
                    .build(),
            ),
        );
    }
}

/// What every route with a JSON body answers when the body is not an object or a text in it holds a control
/// character ([`crate::json`]); added to the routes that document no 400 of their own.
pub const BODY_REFUSED: &str = "The body is not a JSON object (`INVALID_JSON`), or a text in it holds a control \
                                character (`VALIDATION`, `fields` naming each)";

/// The operations of a path (the methods the API uses).
fn operations_of(
    item: &mut utoipa::openapi::path::PathItem,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.patch,
    ]
    .into_iter()
    .flatten()
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Developer Portal API",
        description = "The product API of the developer portal for smart-glasses apps. Errors answer \
                       `{error, code, fields?}` with a distinct status per kind of failure."
    ),
    components(schemas(crate::error::Envelope, Health)),
    modifiers(&BearerAuth),
    tags(
        (name = "system", description = "Health and the browser's start-up configuration"),
        (name = "auth", description = "The core token and the signed-in user"),
        (name = "admin", description = "Platform admins and reviewers: the review queue and decisions, platform users, maintenance"),
        (name = "organizations", description = "Organizations, their members and invitations"),
        (name = "images", description = "Image upload, deletion and delivery"),
        (name = "uptime", description = "App health: current badges, month views from daily rollups (UTC days), problems of a day, and the staff ping"),
        (name = "apps", description = "Apps: registration, configuration, keys, sharing, export, moves and review history"),
        (name = "access-tokens", description = "Personal access tokens (`dpt_…`) for scripts and CI: made, listed and revoked by their owners, and by the admins of the organizations they act in"),
        (name = "audit", description = "The audit logs: who changed what, when and from where, for organizations and the platform"),
        (name = "webhooks", description = "Webhook endpoints of an organization: signed deliveries of its events (Standard Webhooks), retried for about three days, with their delivery log"),
    )
)]
pub struct ApiDoc;

/// The document as served.
#[must_use]
pub fn document() -> utoipa::openapi::OpenApi {
    use utoipa_actix_web::AppExt;
    let (_, mut document) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(|cfg| crate::documented_routes(cfg))
        .split_for_parts();
    SharedRefusals.modify(&mut document);
    DatabaseUnavailable.modify(&mut document);
    RequiredAtRegistration.modify(&mut document);
    TextRule.modify(&mut document);
    PlainSummaries.modify(&mut document);
    document
}

/// An operation's summary is shown as plain text (the `/api/docs` list, generated clients' comments): the
/// backticks its doc comment's first line uses for code are dropped there; the description, which is
/// Markdown, keeps them (issue 48 item 14).
struct PlainSummaries;

impl Modify for PlainSummaries {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for operation in operations_of(item) {
                if let Some(summary) = operation.summary.as_mut()
                    && summary.contains('`')
                {
                    *summary = summary.replace('`', "");
                }
            }
        }
    }
}

/// `GET /api/openapi.json`: the document, built and written once, when it is first asked for. Workers share
/// the bytes: a document kept per worker (as the Swagger UI crate keeps one to write at each request) made
/// an idle server about 10 MB larger.
pub async fn served() -> actix_web::HttpResponse {
    static JSON: std::sync::OnceLock<Option<actix_web::web::Bytes>> = std::sync::OnceLock::new();
    let json = JSON.get_or_init(|| {
        serde_json::to_vec(&document())
            .map(actix_web::web::Bytes::from)
            .inspect_err(|error| tracing::error!(%error, "could not write the OpenAPI document"))
            .ok()
    });
    match json {
        Some(json) => actix_web::HttpResponse::Ok()
            .content_type("application/json")
            .body(json.clone()),
        None => actix_web::ResponseError::error_response(&crate::ApiError::Internal(
            "the OpenAPI document could not be written".into(),
        )),
    }
}

/// The document as pretty JSON (what `app-server openapi` prints).
///
/// # Errors
/// When serialisation fails (it does not for a document built from annotations).
pub fn document_json() -> Result<String, serde_json::Error> {
    document().to_pretty_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_describes_the_system_endpoints_and_the_error_envelope() {
        let json: serde_json::Value = serde_json::from_str(&document_json().unwrap()).unwrap();
        assert_eq!(json["openapi"].as_str().unwrap().chars().next(), Some('3'));
        assert!(json["paths"]["/healthz"]["get"].is_object());
        assert!(json["paths"]["/api/public-config"]["get"].is_object());
        let envelope = &json["components"]["schemas"]["ErrorBody"]["properties"];
        for field in ["error", "code", "fields"] {
            assert!(envelope[field].is_object(), "{field} missing from ErrorBody");
        }
        assert_eq!(json["components"]["securitySchemes"][BEARER]["scheme"], "bearer");
    }

    #[test]
    fn the_register_body_requires_what_a_registration_cannot_do_without() {
        let doc = serde_json::to_value(document()).unwrap();
        let parts = doc["components"]["schemas"]["RegistrationInput"]["allOf"]
            .as_array()
            .unwrap();
        let required: Vec<&str> = parts
            .iter()
            .filter_map(|part| part["required"].as_array())
            .flatten()
            .filter_map(serde_json::Value::as_str)
            .collect();
        assert_eq!(required, domain::apps::validation::REQUIRED_AT_REGISTRATION);
    }

    #[test]
    fn the_texts_of_request_bodies_carry_the_control_character_rule() {
        use domain::common::text::{Lines, non_blank_pattern, pattern};
        let doc = serde_json::to_value(document()).unwrap();
        let schemas = &doc["components"]["schemas"];
        // A one-line text, a multi-line one, and a required one that may not be blank.
        let details = &schemas["AppDetailsInput"]["properties"];
        assert_eq!(details["name"]["pattern"], pattern(Lines::Single));
        assert_eq!(details["description"]["pattern"], pattern(Lines::Multi));
        let create_org = &schemas["CreateOrgRequest"];
        assert_eq!(
            create_org["properties"]["name"]["pattern"],
            non_blank_pattern(Lines::Single)
        );
        // Keys, and the members a route does not read.
        assert_eq!(create_org["propertyNames"]["pattern"], pattern(Lines::Single));
        assert_eq!(
            create_org["additionalProperties"]["$ref"],
            "#/components/schemas/IgnoredMember"
        );
        assert!(schemas["IgnoredMember"]["anyOf"].is_array());
        // A pattern of its own (the package name) is kept; a response-only schema is left alone.
        let own = &schemas["RegistrationInput"]["allOf"][1]["properties"]["packageName"]["pattern"];
        assert_eq!(own, r"^[a-z0-9-]+(\.[a-z0-9-]+)*$");
        assert!(schemas["Health"]["properties"]["status"]["pattern"].is_null());
    }

    #[test]
    fn the_paths_come_from_the_route_attributes_with_the_api_prefix() {
        let doc = serde_json::to_value(document()).unwrap();
        let paths = doc["paths"].as_object().unwrap();
        // Registered inside the `/api` scope, written there without the prefix.
        assert!(paths["/api/dev/apps/{packageName}/api-key"]["post"].is_object());
        // The same path with several methods is one path item.
        let app = &paths["/api/dev/apps/{packageName}"];
        for method in ["get", "put", "delete"] {
            assert!(app[method].is_object(), "{method} missing");
        }
        assert!(paths["/readyz"]["get"].is_object());
        assert!(
            paths
                .keys()
                .all(|p| p.starts_with("/api/") || ["/healthz", "/readyz", "/metrics"].contains(&p.as_str()))
        );
        let operations: usize = paths.values().map(|item| item.as_object().unwrap().len()).sum();
        assert!(operations >= 58, "{operations}");
    }

    #[test]
    fn shared_refusals_are_added_where_a_route_declares_none() {
        let doc = serde_json::to_value(document()).unwrap();
        let key = &doc["paths"]["/api/dev/apps/{packageName}/api-key"]["post"]["responses"];
        assert_eq!(key["401"]["description"], "Not signed in");
        assert_eq!(
            key["403"]["description"],
            "Not a member of the x-org-id organization, or it requires a second factor this session has \
             not passed (`ORG_MFA_REQUIRED`)"
        );
        assert_eq!(key["404"]["description"], "The organization has no such app");
        // A route's own wording wins over the shared one.
        let review = &doc["paths"]["/api/admin/apps/{packageName}/approve"]["post"]["responses"];
        assert_eq!(review["403"]["description"], "Not a platform admin or reviewer");
        // A public route gets no 401.
        assert!(doc["paths"]["/api/public-config"]["get"]["responses"]["401"].is_null());
    }

    #[test]
    fn every_route_with_a_body_documents_its_refusal() {
        let doc = serde_json::to_value(document()).unwrap();
        let mut with_body = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if operation.get("requestBody").is_some() {
                    with_body += 1;
                    assert!(
                        operation["responses"].get("400").is_some(),
                        "{method} {path} documents no 400"
                    );
                }
            }
        }
        assert!(with_body >= 15, "{with_body}");
        // A route's own 400 is kept; one that documents none gets the shared refusal.
        let create = &doc["paths"]["/api/orgs"]["post"]["responses"]["400"];
        assert!(create["description"].as_str().unwrap().contains("VALIDATION"));
        let shared = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| item.as_object().unwrap().values())
            .filter(|operation| operation["responses"]["400"]["description"] == BODY_REFUSED)
            .count();
        assert!(shared > 0, "no route uses the shared refusal");
    }

    #[test]
    fn operation_ids_are_unique_so_that_generated_clients_compile() {
        let json: serde_json::Value = serde_json::from_str(&document_json().unwrap()).unwrap();
        let mut seen = std::collections::BTreeMap::new();
        for (path, item) in json["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if let Some(id) = operation["operationId"].as_str() {
                    let previous = seen.insert(id.to_owned(), format!("{method} {path}"));
                    assert!(
                        previous.is_none(),
                        "operationId {id} of {method} {path} is also {previous:?}"
                    );
                }
            }
        }
        assert!(seen.len() >= 6);
    }

    #[test]
    fn summaries_are_plain_text_and_descriptions_keep_their_markdown() {
        let json: serde_json::Value = serde_json::from_str(&document_json().unwrap()).unwrap();
        let mut described_with_code = 0;
        for (path, item) in json["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let summary = operation["summary"].as_str().unwrap_or_default();
                assert!(!summary.contains('`'), "{method} {path}: {summary}");
                if operation["description"].as_str().is_some_and(|d| d.contains('`')) {
                    described_with_code += 1;
                }
            }
        }
        assert!(described_with_code > 0, "descriptions keep their code spans");
    }
}
