//! Sharing an app: with the whole organization, and with testers through a link.

use actix_web::{HttpResponse, web};
use actix_web::{get, patch, post};

use super::VISIBILITY_REQUIRED;
use super::dto::*;
use super::validation;
use super::{AppsApi, no_store, package};
use crate::ApiError;
use crate::auth::OrgScope;
use crate::json::Json;
use domain::apps::App;
use domain::common::FieldErrors;

/// Sets whether the whole organization sees the app.
#[utoipa::path(operation_id = "set_app_visibility", tag = "apps", security(("bearer" = [])), request_body = VisibilityRequest,
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The app as stored", body = App),
        (status = 400, description = "`sharedWithOrganization` missing", body = crate::openapi::ErrorBody),
    ))]
#[patch("/dev/apps/{packageName}/visibility")]
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
        .publishing
        .set_visibility(scope.member(), &package, shared)
        .await?;
    Ok(no_store(&app))
}

fn emails_of(list: &[domain::common::EmailAddress]) -> Vec<String> {
    list.iter().map(|e| e.as_str().to_owned()).collect()
}

/// Replaces the tester list (each entry an address; duplicates kept once).
#[utoipa::path(operation_id = "set_share_emails", tag = "apps", security(("bearer" = [])), request_body = EmailsRequest,
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The stored tester list", body = SharedEmailsDto),
        (status = 400, description = "An entry is not an address (`VALIDATION`, `fields.emails`)", body = crate::openapi::ErrorBody),
    ))]
#[patch("/dev/apps/{packageName}/share-emails")]
pub async fn share_emails(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<EmailsRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let emails = api
        .publishing
        .set_share_emails(scope.member(), &package, &body.emails)
        .await?;
    Ok(no_store(&SharedEmailsDto {
        shared_with_emails: emails_of(&emails),
    }))
}

/// The tester link (made on first use; the same link afterwards).
#[utoipa::path(operation_id = "get_share_link", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The tester link", body = InstallUrlDto),
    ))]
#[get("/dev/apps/{packageName}/share")]
pub async fn share_link(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let link = api
        .publishing
        .share_link(scope.member(), &package(&path)?)
        .await?;
    Ok(no_store(&InstallUrlDto {
        install_url: link.install_url,
    }))
}

/// Stores the tester list and answers the tester link.
#[utoipa::path(operation_id = "share_app", tag = "apps", security(("bearer" = [])), request_body = EmailsRequest,
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The tester link and list", body = ShareDto),
        (status = 400, description = "An entry is not an address (`VALIDATION`, `fields.emails`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/dev/apps/{packageName}/share")]
pub async fn share(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<EmailsRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let emails = api
        .publishing
        .set_share_emails(scope.member(), &package, &body.emails)
        .await?;
    let link = api.publishing.share_link(scope.member(), &package).await?;
    Ok(no_store(&ShareDto {
        install_url: link.install_url,
        shared_with_emails: emails_of(&emails),
    }))
}

/// A new tester link; the old one stops working at once.
#[utoipa::path(operation_id = "reset_share_link", tag = "apps", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The new tester link", body = InstallUrlDto),
    ))]
#[post("/dev/apps/{packageName}/share/reset")]
pub async fn reset_share(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let link = api
        .publishing
        .reset_share_link(scope.member(), &package(&path)?)
        .await?;
    Ok(no_store(&InstallUrlDto {
        install_url: link.install_url,
    }))
}
