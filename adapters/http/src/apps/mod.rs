//! The app calls (specification §7 "Apps", PRODUCT.md §4, §6): register, read, edit, delete, publish, move,
//! keys, permissions, sharing with testers, the export file and the review history — all in the
//! organization of `x-org-id` ([`OrgScope`]: a forged header is 403 before anything happens) — and the
//! public tester page of a share link (`GET /api/install/{token}`).
//!
//! Handlers only translate: the domain's [`AppService`] and [`ReviewService`] check membership, roles and
//! every rule.

pub mod dto;
pub mod list_cache;

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use domain::apps::config::{export_config, export_file_name};
use domain::apps::service::{AppError, AppService};
use domain::apps::validation::{RegistrationInput, UpdateInput};
use domain::apps::{App, PackageName, Permission, TesterView};
use domain::common::FieldErrors;
use domain::review::ReviewService;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;

use self::dto::{
    ApiKeyDto, EmailsRequest, HistoryEntryDto, InstallUrlDto, MoveRequest, PermissionsDto, RegisteredDto,
    ShareDto, SharedEmailsDto, VisibilityRequest,
};
use self::list_cache::AppListCache;
use crate::ApiError;
use crate::auth::OrgScope;
use crate::json::Json;

/// The summary message of a refused body whose fields are listed in `fields`.
pub const FIX_FIELDS: &str = "Please fix the highlighted fields.";
/// The message of a visibility change without its flag.
pub const VISIBILITY_REQUIRED: &str = "sharedWithOrganization must be true or false";

/// What the app handlers need.
#[derive(Clone)]
pub struct AppsApi {
    pub apps: Arc<AppService>,
    pub reviews: Arc<ReviewService>,
    /// The answers of `GET /api/dev/apps`, kept with the revision of the organization's apps.
    pub lists: Arc<AppListCache>,
}

impl std::fmt::Debug for AppsApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AppsApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes(api: AppsApi) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        cfg.app_data(web::Data::new(api))
            .route("/dev/apps", web::get().to(list))
            .route("/dev/apps/register", web::post().to(register))
            .route("/dev/apps/{packageName}", web::get().to(get))
            .route("/dev/apps/{packageName}", web::put().to(update))
            .route("/dev/apps/{packageName}", web::delete().to(delete))
            .route("/dev/apps/{packageName}/publish", web::post().to(publish))
            .route("/dev/apps/{packageName}/move-org", web::post().to(move_org))
            .route("/dev/apps/{packageName}/api-key", web::post().to(regenerate_key))
            .route("/dev/apps/{packageName}/visibility", web::patch().to(visibility))
            .route(
                "/dev/apps/{packageName}/share-emails",
                web::patch().to(share_emails),
            )
            .route("/dev/apps/{packageName}/share", web::get().to(share_link))
            .route("/dev/apps/{packageName}/share", web::post().to(share))
            .route("/dev/apps/{packageName}/share/reset", web::post().to(reset_share))
            .route("/dev/apps/{packageName}/config", web::get().to(export))
            .route("/dev/apps/{packageName}/history", web::get().to(history))
            .route("/permissions/{packageName}", web::get().to(permissions))
            .route("/permissions/{packageName}", web::patch().to(set_permissions))
            .route("/install/{token}", web::get().to(tester_view));
    }
}

/// A package name from the path: one that cannot be a package name names no app.
fn package(text: &str) -> Result<PackageName, ApiError> {
    PackageName::parse(text).map_err(|_| ApiError::from(AppError::NotFound))
}

fn validation(fields: FieldErrors) -> ApiError {
    ApiError::from(AppError::Validation(fields))
}

/// serde's description of a value of the wrong shape, without the server's type names or positions.
fn shape_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let text = text.split(" at line ").next().unwrap_or_default().to_owned();
    format!("Invalid value: {text}")
}

/// When serde refused an entry of a list field for an unknown enum value (a permission `type`, a hardware
/// `level`…): the key holding it and a message naming it and the values there are
/// (`Unknown type "LASER". Use one of: MICROPHONE, …`).
fn unknown_value<'a>(item: &'a Value, error: &serde_json::Error) -> Option<(&'a str, String)> {
    let text = error.to_string();
    let rest = text.strip_prefix("unknown variant `")?;
    let (value, rest) = rest.split_once('`')?;
    let (key, _) = item
        .as_object()?
        .iter()
        .find(|(_, sent)| sent.as_str() == Some(value))?;
    // serde lists them as "expected `A`", "expected `A` or `B`" or "expected one of `A`, `B`, `C`".
    let listed = rest.split_once("expected ").map_or("", |(_, list)| list);
    let listed = listed.strip_prefix("one of ").unwrap_or(listed);
    let known: Vec<&str> = listed
        .split(" at line ")
        .next()
        .unwrap_or_default()
        .split([',', ' '])
        .filter(|word| *word != "or")
        .map(|name| name.trim_matches('`'))
        .filter(|name| !name.is_empty())
        .collect();
    let message = if known.is_empty() {
        format!("Unknown {key} \"{value}\".")
    } else {
        format!("Unknown {key} \"{value}\". Use one of: {}.", known.join(", "))
    };
    Some((key.as_str(), message))
}

/// Reads a JSON body into `T` with field errors instead of one parse error: each entry of the listed
/// array fields is checked on its own (`settings[2]`, `permissions[0].type`), then the body as a whole.
/// The body is an object already ([`Json`] refuses anything else).
fn read_body<T: DeserializeOwned>(body: &Value, lists: &[ListCheck]) -> Result<T, ApiError> {
    let mut fields = FieldErrors::new();
    for (name, check) in lists {
        match body.get(*name) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (index, item) in items.iter().enumerate() {
                    if let Err(error) = check(item) {
                        match unknown_value(item, &error) {
                            Some((key, text)) => fields.add(format!("{name}[{index}].{key}"), text),
                            None => fields.add(format!("{name}[{index}]"), shape_message(&error)),
                        }
                    }
                }
            }
            Some(_) => fields.add(*name, format!("{name} must be a list")),
        }
    }
    if !fields.is_empty() {
        return Err(validation(fields));
    }
    serde_json::from_value(body.clone()).map_err(|error| {
        ApiError::bad_request(
            "INVALID_JSON",
            format!(
                "The request body does not have the expected shape: {}",
                shape_message(&error).trim_start_matches("Invalid value: ")
            ),
        )
    })
}

/// A list field of a body and the check of one of its entries.
type ListCheck = (&'static str, fn(&Value) -> Result<(), serde_json::Error>);

fn check<T: DeserializeOwned>(value: &Value) -> Result<(), serde_json::Error> {
    T::deserialize(value).map(|_| ())
}

const PERMISSIONS: ListCheck = ("permissions", check::<Permission>);
const HARDWARE: ListCheck = ("hardwareRequirements", check::<domain::apps::HardwareRequirement>);
const SETTINGS: ListCheck = ("settings", check::<domain::apps::Setting>);
const TOOLS: ListCheck = ("tools", check::<domain::apps::Tool>);

fn no_store(app: &impl serde::Serialize) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(app)
}

/// The apps of the `x-org-id` organization, newest first.
#[utoipa::path(operation_id = "list_apps", get, path = "/api/dev/apps", tag = "apps", security(("bearer" = [])),
    params(("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The organization's apps", body = Vec<App>),
        (status = 400, description = "x-org-id missing or malformed", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
    ))]
pub async fn list(api: web::Data<AppsApi>, scope: OrgScope) -> Result<HttpResponse, ApiError> {
    // The revision first, then the apps: an answer kept with a revision is at least as new as it, and one
    // kept earlier is used only while the revision has not moved ([`AppListCache`]).
    // The membership was read once, by the extractor: the use cases take it as it answered.
    let revision = api
        .apps
        .list_revision(scope.member())
        .await
        .map_err(ApiError::from)?;
    let body = match api.lists.get(scope.org, revision) {
        Some(body) => body,
        None => {
            let apps = api.apps.list(scope.member()).await.map_err(ApiError::from)?;
            let body = web::Bytes::from(
                serde_json::to_vec(&apps).map_err(|error| ApiError::Internal(Box::new(error)))?,
            );
            api.lists.put(scope.org, revision, body.clone());
            body
        }
    };
    Ok(HttpResponse::Ok()
        .content_type(header::ContentType::json())
        .insert_header(("Cache-Control", "no-store"))
        .body(body))
}

/// Registers an app in the `x-org-id` organization and answers its API key, shown this once.
#[utoipa::path(operation_id = "register_app", post, path = "/api/dev/apps/register", tag = "apps", security(("bearer" = [])), request_body = RegistrationInput,
    params(("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 201, description = "The new app and its API key", body = RegisteredDto),
        (status = 400, description = "A field is invalid (`VALIDATION` with `fields`), or x-org-id missing", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 409, description = "The package name is taken (`PACKAGE_NAME_TAKEN`, `fields.packageName`)", body = crate::openapi::ErrorBody),
    ))]
pub async fn register(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let input: RegistrationInput = read_body(&body, &[PERMISSIONS, HARDWARE])?;
    let registered = api
        .apps
        .register(&scope.caller, Some(scope.org), &input)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .json(RegisteredDto {
            api_key: registered.api_key.expose().to_owned(),
            app: registered.app,
        }))
}

/// One app of the `x-org-id` organization.
#[utoipa::path(operation_id = "get_app", get, path = "/api/dev/apps/{packageName}", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The app", body = App),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn get(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let app = api
        .apps
        .get(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&app))
}

/// Edits the app: only the listed fields are written; status, review fields, key, organization and
/// permissions in the body are ignored. An edit of a SUBMITTED or PUBLISHED app is recorded in its history.
#[utoipa::path(operation_id = "update_app", put, path = "/api/dev/apps/{packageName}", tag = "apps", security(("bearer" = [])), request_body = UpdateInput,
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The app as stored", body = App),
        (status = 400, description = "A field is invalid (`VALIDATION` with `fields`, e.g. `settings[2].key`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
        (status = 409, description = "The app's status changed meanwhile", body = crate::openapi::ErrorBody),
    ))]
pub async fn update(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let input: UpdateInput = read_body(&body, &[SETTINGS, TOOLS, HARDWARE])?;
    let app = api
        .apps
        .update(&scope.caller, scope.org, &package, &input)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&app))
}

/// Deletes the app with its key, share link, images, history and uptime data; the package name is free
/// again.
#[utoipa::path(operation_id = "delete_app", delete, path = "/api/dev/apps/{packageName}", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn delete(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let outcome = api
        .apps
        .delete(&scope.caller, scope.org, &package)
        .await
        .map_err(ApiError::from)?;
    for file in &outcome.unremoved_files {
        tracing::warn!(file = %file, package = %package, "an image file of a deleted app could not be removed");
    }
    Ok(HttpResponse::NoContent().finish())
}

/// Submits the app for review (DEVELOPMENT or REJECTED → SUBMITTED); the organization needs a name and a
/// contact e-mail.
#[utoipa::path(operation_id = "publish_app", post, path = "/api/dev/apps/{packageName}/publish", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The app, now SUBMITTED", body = App),
        (status = 400, description = "The organization profile is incomplete (`PROFILE_INCOMPLETE`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
        (status = 409, description = "Already SUBMITTED or PUBLISHED (`ILLEGAL_TRANSITION`), or changed meanwhile", body = crate::openapi::ErrorBody),
    ))]
pub async fn publish(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let app = api
        .apps
        .publish(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&app))
}

/// Moves the app to another organization: an admin of the source, at least a member of the target. The
/// app keeps its key, status and settings; the move is recorded.
#[utoipa::path(operation_id = "move_app", post, path = "/api/dev/apps/{packageName}/move-org", tag = "apps", security(("bearer" = [])), request_body = MoveRequest,
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The source organization")),
    responses(
        (status = 200, description = "The app, now in the target organization", body = App),
        (status = 400, description = "No target organization (`TARGET_ORG_REQUIRED`), or the same one (`SAME_ORGANIZATION`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not an admin of the source, or not a member of the target", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn move_org(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let target = match body.into_inner().target_org_id {
        Some(text) if !text.trim().is_empty() => match text.trim().parse() {
            Ok(org) => Some(org),
            // An id that cannot be one names no organization the caller belongs to.
            Err(_) => return Err(ApiError::from(AppError::NotMemberOfTarget)),
        },
        _ => None,
    };
    let app = api
        .apps
        .move_to(&scope.caller, scope.org, &package, target)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&app))
}

/// Issues a new API key, shown this once; the old key stops working at once.
#[utoipa::path(operation_id = "regenerate_api_key", post, path = "/api/dev/apps/{packageName}/api-key", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The new key", body = ApiKeyDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn regenerate_key(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = api
        .apps
        .regenerate_key(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&ApiKeyDto {
        api_key: key.expose().to_owned(),
    }))
}

/// The app's permissions.
#[utoipa::path(operation_id = "get_permissions", get, path = "/api/permissions/{packageName}", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The permissions", body = PermissionsDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn permissions(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let permissions = api
        .apps
        .permissions(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&PermissionsDto { permissions }))
}

/// Replaces the app's permissions. A permission added to a PUBLISHED app sends it back to SUBMITTED.
#[utoipa::path(operation_id = "set_permissions", patch, path = "/api/permissions/{packageName}", tag = "apps", security(("bearer" = [])), request_body = PermissionsDto,
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The app as stored", body = App),
        (status = 400, description = "A permission is invalid (`VALIDATION`, e.g. `permissions[0].type`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
        (status = 409, description = "The app's status changed meanwhile", body = crate::openapi::ErrorBody),
    ))]
pub async fn set_permissions(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    #[derive(serde::Deserialize)]
    struct Body {
        permissions: Option<Vec<Permission>>,
    }
    let body: Body = read_body(&body, &[PERMISSIONS])?;
    let Some(permissions) = body.permissions else {
        return Err(validation(FieldErrors::single(
            "permissions",
            "permissions must be a list",
        )));
    };
    let app = api
        .apps
        .set_permissions(&scope.caller, scope.org, &package, &permissions)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&app))
}

/// Sets whether the whole organization sees the app.
#[utoipa::path(operation_id = "set_app_visibility", patch, path = "/api/dev/apps/{packageName}/visibility", tag = "apps", security(("bearer" = [])), request_body = VisibilityRequest,
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The app as stored", body = App),
        (status = 400, description = "`sharedWithOrganization` missing", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn visibility(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<VisibilityRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let Some(shared) = body.into_inner().shared_with_organization else {
        return Err(validation(FieldErrors::single(
            "sharedWithOrganization",
            VISIBILITY_REQUIRED,
        )));
    };
    let app = api
        .apps
        .set_visibility(&scope.caller, scope.org, &package, shared)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&app))
}

fn emails_of(list: &[domain::common::EmailAddress]) -> Vec<String> {
    list.iter().map(|e| e.as_str().to_owned()).collect()
}

/// Replaces the tester list (each entry an address; duplicates kept once).
#[utoipa::path(operation_id = "set_share_emails", patch, path = "/api/dev/apps/{packageName}/share-emails", tag = "apps", security(("bearer" = [])), request_body = EmailsRequest,
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The stored tester list", body = SharedEmailsDto),
        (status = 400, description = "An entry is not an address (`VALIDATION`, `fields.emails`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn share_emails(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<EmailsRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let emails = api
        .apps
        .set_share_emails(&scope.caller, scope.org, &package, &body.emails)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&SharedEmailsDto {
        shared_with_emails: emails_of(&emails),
    }))
}

/// The tester link (made on first use; the same link afterwards).
#[utoipa::path(operation_id = "get_share_link", get, path = "/api/dev/apps/{packageName}/share", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The tester link", body = InstallUrlDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn share_link(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let link = api
        .apps
        .share_link(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&InstallUrlDto {
        install_url: link.install_url,
    }))
}

/// Stores the tester list and answers the tester link.
#[utoipa::path(operation_id = "share_app", post, path = "/api/dev/apps/{packageName}/share", tag = "apps", security(("bearer" = [])), request_body = EmailsRequest,
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The tester link and list", body = ShareDto),
        (status = 400, description = "An entry is not an address (`VALIDATION`, `fields.emails`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn share(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<EmailsRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let emails = api
        .apps
        .set_share_emails(&scope.caller, scope.org, &package, &body.emails)
        .await
        .map_err(ApiError::from)?;
    let link = api
        .apps
        .share_link(&scope.caller, scope.org, &package)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&ShareDto {
        install_url: link.install_url,
        shared_with_emails: emails_of(&emails),
    }))
}

/// A new tester link; the old one stops working at once.
#[utoipa::path(operation_id = "reset_share_link", post, path = "/api/dev/apps/{packageName}/share/reset", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The new tester link", body = InstallUrlDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn reset_share(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let link = api
        .apps
        .reset_share_link(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store(&InstallUrlDto {
        install_url: link.install_url,
    }))
}

/// The app's configuration file (valid for `@mentra/sdk` `validateAppConfig`), as a download.
#[utoipa::path(operation_id = "export_app_config", get, path = "/api/dev/apps/{packageName}/config", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The file, with `Content-Disposition: attachment; filename=\"{packageName}_config.json\"`", body = Object),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn export(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let app: App = api
        .apps
        .get(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    let file = export_config(&app);
    let text = serde_json::to_string_pretty(&file).map_err(|e| ApiError::Internal(Box::new(e)))?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}\"", export_file_name(&app.package_name)),
        ))
        .content_type("application/json")
        .body(text))
}

/// The app's review history, oldest first (submissions, decisions, edits, resubmissions, moves).
#[utoipa::path(operation_id = "app_history", get, path = "/api/dev/apps/{packageName}/history", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), ("x-org-id" = String, Header, description = "The current organization")),
    responses(
        (status = 200, description = "The history", body = Vec<HistoryEntryDto>),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the x-org-id organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn history(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let events = api
        .reviews
        .history(&scope.caller, scope.org, &package(&path)?)
        .await
        .map_err(ApiError::from)?;
    let entries: Vec<HistoryEntryDto> = events.iter().map(HistoryEntryDto::from).collect();
    Ok(no_store(&entries))
}

/// The read-only tester page of a share link (no sign-in): only what a tester needs.
#[utoipa::path(operation_id = "tester_view", get, path = "/api/install/{token}", tag = "apps",
    params(("token" = String, Path, description = "The share token of the tester link")),
    responses(
        (status = 200, description = "The app as testers see it", body = TesterView),
        (status = 404, description = "Unknown or reset link", body = crate::openapi::ErrorBody),
    ))]
pub async fn tester_view(api: web::Data<AppsApi>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let view = api.apps.shared_app(&path).await.map_err(ApiError::from)?;
    Ok(no_store(&view))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::apps::validation::UpdateInput;
    use serde_json::json;

    #[test]
    fn a_malformed_list_entry_is_named_by_its_path() {
        let body = json!({"permissions": [{"type": "CAMERA"}, {"type": "TELEPATHY"}]});
        let err = read_body::<RegistrationInput>(&body, &[PERMISSIONS]).unwrap_err();
        assert_eq!(err.code(), "VALIDATION");
        let ApiError::Validation { fields, .. } = err else {
            panic!("{err:?}")
        };
        assert!(fields.contains_key("permissions[1].type"), "{fields:?}");
        assert_eq!(fields.len(), 1);
    }

    #[test]
    fn a_setting_of_the_wrong_shape_is_named_by_its_index() {
        let body = json!({"settings": [{"type": "toggle", "key": "k", "label": "K"}, {"type": "slider"}]});
        let err = read_body::<UpdateInput>(&body, &[SETTINGS, TOOLS]).unwrap_err();
        let ApiError::Validation { fields, .. } = err else {
            panic!("{err:?}")
        };
        assert!(fields.contains_key("settings[1]"));
    }

    #[test]
    fn unknown_and_forbidden_update_fields_are_ignored() {
        let body =
            json!({"name": "X", "appStoreStatus": "PUBLISHED", "organizationId": "o", "reviewedBy": "me"});
        let input: UpdateInput = read_body(&body, &[SETTINGS]).unwrap();
        assert_eq!(input.name.as_deref(), Some("X"));
    }

    #[test]
    fn app_errors_keep_the_domain_codes() {
        assert_eq!(
            ApiError::from(AppError::ProfileIncomplete).code(),
            "PROFILE_INCOMPLETE"
        );
        assert_eq!(
            ApiError::from(AppError::DuplicatePackageName).code(),
            "PACKAGE_NAME_TAKEN"
        );
        assert_eq!(ApiError::from(AppError::NotFound).code(), "NOT_FOUND");
        assert_eq!(ApiError::from(AppError::AdminOnly).code(), "FORBIDDEN");
    }
}
