//! The app's API key.

use actix_web::post;
use actix_web::{HttpResponse, web};

use super::dto::*;
use super::{AppsApi, no_store, package};
use crate::ApiError;
use crate::auth::OrgScope;

/// Issues a new API key, shown this once; the old key stops working at once.
#[utoipa::path(operation_id = "regenerate_api_key", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:keys"])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The new key", body = ApiKeyDto),
    ))]
#[post("/dev/apps/{packageName}/api-key")]
pub async fn regenerate_key(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = api.apps.regenerate_key(scope.member(), &package(&path)?).await?;
    Ok(no_store(&ApiKeyDto {
        api_key: key.expose().to_owned(),
    }))
}
