//! Images (specification §7 "Images", PRODUCT.md §4): `POST /api/dev/images/upload`,
//! `DELETE /api/dev/images/{imageId}` (both in the organization of `x-org-id`), and the public delivery
//! `GET /api/images/{imageId}` at the URL the upload answers.
//!
//! The upload is read from the multipart stream with its limits applied while reading: the file part is
//! refused (413) as soon as it passes 10 MB, so no more than that is ever held, and a declared body far
//! larger than that is refused before anything is read. The type is decided by the content (the domain's
//! magic-byte check and decode), never by the file name or the part's declared type.

mod form;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use domain::common::ImageId;
use domain::media::service::IMAGE_NOT_FOUND;
use domain::media::{ImageFormat, MediaService};
use serde::Serialize;
use std::sync::Arc;

use crate::ApiError;
use crate::RouteSink;
use crate::auth::OrgScope;

use form::{UploadForm, read_upload, upload_request};

/// The image use cases, as app data.
#[derive(Clone)]
pub struct ImagesApi(pub Arc<MediaService>);

impl std::fmt::Debug for ImagesApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ImagesApi")
    }
}

/// Images never change under their id (a replacement gets a new one), so they may be cached for a year.
pub const IMAGE_CACHE_CONTROL: &str = "public, max-age=31536000, immutable";

/// Registers the routes of this module inside the `/api` scope.
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(upload).service(delete).service(deliver);
}

/// The stored image's delivery URL.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct UploadResponse {
    #[schema(example = "https://portal.example.com/api/images/0b5c6a3e-7f1d-4c1e-9a8b-2f0e3d4c5b6a")]
    pub url: String,
}

/// The answer of a delete.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct DeleteResponse {
    pub success: bool,
}

/// Uploads an image for the organization of `x-org-id`, optionally replacing one of its images, and
/// answers its delivery URL.
#[utoipa::path(tag = "images", security(("bearer" = [])),
    params(crate::auth::OrgHeader),
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Stored", body = UploadResponse),
        (status = 400, description = "No file, a malformed form or metadata, a missing or malformed x-org-id, or an appPackageName that is not a package name (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the organization; replacing the logo needs an admin", body = crate::openapi::ErrorBody),
        (status = 404, description = "The image to replace is not the organization's", body = crate::openapi::ErrorBody),
        (status = 413, description = "Over 10 MB, too many pixels (IMAGE_TOO_LARGE, IMAGE_TOO_MANY_PIXELS), or over the organization's image storage quota (IMAGE_QUOTA_EXCEEDED)", body = crate::openapi::ErrorBody),
        (status = 429, description = "The caller uploaded 60 images in the last hour; `Retry-After` says when to try again", body = crate::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 415, description = "Not a PNG, JPEG, GIF or WebP image by content, or not multipart", body = crate::openapi::ErrorBody),
    ))]
#[post("/dev/images/upload")]
pub async fn upload(
    api: web::Data<ImagesApi>,
    scope: OrgScope,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let parts = read_upload(&request, payload).await?;
    let upload = upload_request(parts)?;
    let stored = api.0.upload(scope.member(), upload).await?;
    if let Some(file) = &stored.unremoved_file {
        tracing::warn!(key = %file, image_id = %stored.meta.id, "the replaced image's file could not be removed");
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(UploadResponse { url: stored.url }))
}

/// Deletes one of the organization's images: its file and its row.
#[utoipa::path(tag = "images", security(("bearer" = [])),
    params(
        ("imageId" = String, Path, description = "The image id (the last segment of its URL)"),
        crate::auth::OrgHeader,
    ),
    responses(
        (status = 200, description = "Deleted", body = DeleteResponse),
        (status = 400, description = "A missing or malformed x-org-id", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the organization; deleting the logo needs an admin", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such image", body = crate::openapi::ErrorBody),
    ))]
#[delete("/dev/images/{imageId}")]
pub async fn delete(
    api: web::Data<ImagesApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path
        .parse::<ImageId>()
        .map_err(|_| ApiError::NotFound(IMAGE_NOT_FOUND.into()))?;
    api.0.delete(scope.member(), id).await?;
    Ok(HttpResponse::Ok().json(DeleteResponse { success: true }))
}

/// The served content type: the stored one when it is one of the accepted image types, else a type no
/// browser renders.
fn served_type(stored: &str) -> &'static str {
    [
        ImageFormat::Png,
        ImageFormat::Jpeg,
        ImageFormat::Gif,
        ImageFormat::Webp,
    ]
    .into_iter()
    .map(ImageFormat::content_type)
    .find(|known| known.eq_ignore_ascii_case(stored))
    .unwrap_or("application/octet-stream")
}

/// An image's bytes, for anyone (logos are public). Served with its true type, never sniffed, never
/// run as a document, and cached for long (an id's bytes never change).
#[utoipa::path(tag = "images",
    params(("imageId" = String, Path, description = "The image id")),
    responses(
        (status = 200, description = "The image bytes", content(
            ("image/png"), ("image/jpeg"), ("image/gif"), ("image/webp"),
        )),
        (status = 404, description = "No such image", body = crate::openapi::ErrorBody),
    ))]
#[get("/images/{imageId}")]
pub async fn deliver(api: web::Data<ImagesApi>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let id = path
        .parse::<ImageId>()
        .map_err(|_| ApiError::NotFound(IMAGE_NOT_FOUND.into()))?;
    let (bytes, content_type) = api.0.fetch(id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, served_type(&content_type)))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_DISPOSITION, "inline"))
        .insert_header((header::CACHE_CONTROL, IMAGE_CACHE_CONTROL))
        .insert_header((header::CONTENT_SECURITY_POLICY, "default-src 'none'; sandbox"))
        .body(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::ResponseError;
    use domain::media::{ImageRejection, MediaError};

    #[test]
    fn every_media_error_has_its_status() {
        let statuses: Vec<u16> = [
            MediaError::NotMember,
            MediaError::LogoAdminOnly,
            MediaError::Rejected(ImageRejection::InvalidType),
            MediaError::Rejected(ImageRejection::TooLarge),
            MediaError::Rejected(ImageRejection::TooManyPixels),
            MediaError::NotFound,
            MediaError::Repo(domain::common::RepoError::NotFound),
        ]
        .into_iter()
        .map(|e| ApiError::from(e).status_code().as_u16())
        .collect();
        assert_eq!(statuses, [403, 403, 415, 413, 413, 404, 500]);
        let refused = ApiError::from(MediaError::Rejected(ImageRejection::TooLarge));
        assert_eq!(
            (refused.code(), refused.to_string().as_str()),
            ("IMAGE_TOO_LARGE", "Image size must be less than 10MB")
        );
        let refused = ApiError::from(MediaError::Rejected(ImageRejection::InvalidType));
        assert_eq!(
            (refused.code(), refused.to_string().as_str()),
            (
                "INVALID_IMAGE_TYPE",
                "Please select a valid image file (PNG, JPEG, GIF, or WebP)"
            )
        );
    }

    #[test]
    fn only_image_types_are_served_as_such() {
        assert_eq!(served_type("image/png"), "image/png");
        assert_eq!(served_type("IMAGE/WEBP"), "image/webp");
        assert_eq!(served_type("text/html"), "application/octet-stream");
        assert_eq!(served_type("image/svg+xml"), "application/octet-stream");
    }
}
