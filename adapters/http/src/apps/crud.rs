//! Registering, reading, editing and deleting apps; the export file, the review history and the public
//! tester page.

use actix_web::{HttpResponse, web};
use actix_web::{delete, get, post, put};

use super::body::{HARDWARE, PERMISSIONS, SETTINGS, TOOLS, read_body};
use super::dto::*;
use super::{AppsApi, no_store, package};
use crate::ApiError;
use crate::auth::OrgScope;
use crate::json::Json;
use actix_web::http::header;
use domain::apps::config::{export_config, export_file_name};
use domain::apps::validation::RegistrationInput;
use domain::apps::validation::UpdateInput;
use domain::apps::{App, TesterView};
use serde_json::Value;

/// The apps of the `x-org-id` organization, newest first.
#[utoipa::path(operation_id = "list_apps", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:read"])),
    params(crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The organization's apps", body = Vec<App>),
        (status = 400, description = "x-org-id missing or malformed", body = crate::openapi::ErrorBody),
    ))]
#[get("/dev/apps")]
pub async fn list(api: web::Data<AppsApi>, scope: OrgScope) -> Result<HttpResponse, ApiError> {
    let body = list_body(&api, &scope).await?;
    Ok(HttpResponse::Ok()
        .content_type(header::ContentType::json())
        .insert_header(("Cache-Control", "no-store"))
        .body(body))
}

/// The JSON of the organization's apps, from the cache while the organization's apps revision has not moved.
/// The revision first, then the apps: an answer kept with a revision is at least as new as it, and one kept
/// earlier is used only while the revision has not moved ([`super::list_cache::AppListCache`]). The
/// membership was read once, by the extractor: the use cases take it as it answered.
async fn list_body(api: &AppsApi, scope: &OrgScope) -> Result<web::Bytes, ApiError> {
    let revision = api.apps.list_revision(scope.member()).await?;
    if let Some(body) = api.lists.get(scope.org, revision) {
        return Ok(body);
    }
    let apps = api.apps.list(scope.member()).await?;
    let body =
        web::Bytes::from(serde_json::to_vec(&apps).map_err(|error| ApiError::Internal(Box::new(error)))?);
    api.lists.put(scope.org, revision, body.clone());
    Ok(body)
}

/// Registers an app in the `x-org-id` organization and answers its API key, shown this once.
#[utoipa::path(operation_id = "register_app", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:write"])), request_body = RegistrationInput,
    params(crate::auth::OrgHeader),
    responses(
        (status = 201, description = "The new app and its API key", body = RegisteredDto),
        (status = 400, description = "A field is invalid (`VALIDATION` with `fields`), or x-org-id missing", body = crate::openapi::ErrorBody),
        (status = 409, description = "The package name is taken (`PACKAGE_NAME_TAKEN`, `fields.packageName`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/dev/apps/register")]
pub async fn register(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let input: RegistrationInput = read_body(&body, &[PERMISSIONS, HARDWARE])?;
    let registered = api.apps.register(scope.member(), &input).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .json(RegisteredDto {
            api_key: registered.api_key.expose().to_owned(),
            app: registered.app,
        }))
}

/// One app of the `x-org-id` organization.
#[utoipa::path(operation_id = "get_app", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:read"])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The app", body = App),
    ))]
#[get("/dev/apps/{packageName}")]
pub async fn get(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let app = api.apps.get(scope.member(), &package(&path)?).await?;
    Ok(no_store(&app))
}

/// Edits the app: only the listed fields are written; status, review fields, key, organization and
/// permissions in the body are ignored. An edit of a SUBMITTED or PUBLISHED app is recorded in its history.
#[utoipa::path(operation_id = "update_app", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:write"])), request_body = UpdateInput,
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The app as stored", body = App),
        (status = 400, description = "A field is invalid (`VALIDATION` with `fields`, e.g. `settings[2].key`)", body = crate::openapi::ErrorBody),
        (status = 409, description = "The app's status changed meanwhile", body = crate::openapi::ErrorBody),
    ))]
#[put("/dev/apps/{packageName}")]
pub async fn update(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let input: UpdateInput = read_body(&body, &[SETTINGS, TOOLS, HARDWARE])?;
    let app = api.apps.update(scope.member(), &package, &input).await?;
    Ok(no_store(&app))
}

/// Deletes the app with its key, share link, images, history and uptime data; the package name is free
/// again.
#[utoipa::path(operation_id = "delete_app", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:write"])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 204, description = "Deleted"),
    ))]
#[delete("/dev/apps/{packageName}")]
pub async fn delete(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let outcome = api.apps.delete(scope.member(), &package).await?;
    for file in &outcome.unremoved_files {
        tracing::warn!(file = %file, package = %package, "an image file of a deleted app could not be removed");
    }
    Ok(HttpResponse::NoContent().finish())
}

/// The app's configuration file (valid for `@mentra/sdk` `validateAppConfig`), as a download.
#[utoipa::path(operation_id = "export_app_config", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:read"])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The file, with `Content-Disposition: attachment; filename=\"{packageName}_config.json\"`", body = domain::apps::config::ConfigFile),
    ))]
#[get("/dev/apps/{packageName}/config")]
pub async fn export(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let app: App = api.apps.get(scope.member(), &package(&path)?).await?;
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

/// The app's review history, oldest first (submissions, decisions, edits, resubmissions, moves); a
/// decision by a platform reviewer names "App Review", not the reviewer.
#[utoipa::path(operation_id = "app_history", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:read"])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The history", body = Vec<HistoryEntryDto>),
    ))]
#[get("/dev/apps/{packageName}/history")]
pub async fn history(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let events = api.reviews.history(scope.member(), &package(&path)?).await?;
    let entries: Vec<HistoryEntryDto> = events.iter().map(HistoryEntryDto::from).collect();
    Ok(no_store(&entries))
}

/// The read-only tester page of a share link (no sign-in): only what a tester needs.
#[utoipa::path(operation_id = "tester_view", tag = "apps",
    params(("token" = String, Path, description = "The share token of the tester link")),
    responses(
        (status = 200, description = "The app as testers see it", body = TesterView),
        (status = 404, description = "Unknown or reset link", body = crate::openapi::ErrorBody),
    ))]
#[get("/install/{token}")]
pub async fn tester_view(api: web::Data<AppsApi>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let view = api.publishing.shared_app(&path).await?;
    Ok(no_store(&view))
}
