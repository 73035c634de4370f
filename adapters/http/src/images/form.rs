//! The upload's multipart body, read part by part with its limits: the file part is refused (413) as soon as
//! it passes 10 MB, so no more than that is ever held; the parts become the domain's request.

use actix_multipart::{Field, Multipart, MultipartError};
use actix_web::http::header;
use actix_web::{HttpRequest, web};
use domain::apps::PackageName;
use domain::media::models::{MAX_IMAGE_BYTES, parse_image_ref};
use domain::media::service::IMAGE_NOT_FOUND;
use domain::media::{ImageRejection, MediaError, UploadRequest};
use futures_util::StreamExt;
use serde::Deserialize;
use std::collections::BTreeMap;

use crate::ApiError;

/// Room for the multipart framing and the small fields beside a 10 MB file; a declared body larger than
/// the file limit plus this is refused before it is read.
pub const MAX_FORM_OVERHEAD: usize = 64 * 1024;
/// The largest `metadata` or `replaceImageId` part.
pub const MAX_TEXT_PART: usize = 8 * 1024;
/// The most parts an upload may have (`file`, `metadata`, `replaceImageId`).
pub const MAX_PARTS: usize = 3;
pub const FILE_REQUIRED: &str = "No file uploaded";
pub const NOT_MULTIPART: &str = "Send the image as multipart/form-data with a `file` part.";

fn multipart_error(error: &MultipartError) -> ApiError {
    match error {
        MultipartError::ContentTypeMissing
        | MultipartError::ContentTypeParse
        | MultipartError::ContentTypeIncompatible
        | MultipartError::BoundaryMissing => ApiError::unsupported_media_type(NOT_MULTIPART),
        other => ApiError::bad_request(
            "INVALID_MULTIPART",
            format!("The upload could not be read: {other}"),
        ),
    }
}

/// Reads a part into memory, refusing it with `too_large` as soon as it passes `limit` bytes: nothing past
/// the limit is kept.
async fn read_part(
    field: &mut Field,
    limit: usize,
    too_large: fn() -> ApiError,
) -> Result<Vec<u8>, ApiError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = field.next().await {
        let chunk = chunk.map_err(|e| multipart_error(&e))?;
        if bytes.len() + chunk.len() > limit {
            return Err(too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

fn image_too_large() -> ApiError {
    ApiError::from(MediaError::Rejected(ImageRejection::TooLarge))
}

fn part_too_large() -> ApiError {
    ApiError::payload_too_large(format!(
        "A form field other than the file is over {MAX_TEXT_PART} bytes."
    ))
}

fn text_of(bytes: Vec<u8>, part: &str) -> Result<String, ApiError> {
    String::from_utf8(bytes)
        .map(|text| text.trim().to_owned())
        .map_err(|_| {
            ApiError::bad_request(
                "INVALID_MULTIPART",
                format!("The `{part}` part is not UTF-8 text."),
            )
        })
}

/// The optional `metadata` part (JSON).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadMetadata {
    /// The app the image is for (a hint: the app may not exist yet).
    pub app_package_name: Option<String>,
    /// The image this upload replaces: an id or a delivery URL (also accepted as its own part).
    pub replace_image_id: Option<String>,
}

/// The multipart body of `POST /api/dev/images/upload`. A multipart form is read part by part, not
/// deserialised: this is its schema, never a value.
#[derive(Debug)]
pub enum UploadForm {}

impl utoipa::PartialSchema for UploadForm {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        let text = |description: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(description.to_owned()))
        };
        ObjectBuilder::new()
            .property(
                "file",
                text("The image: PNG, JPEG, GIF or WebP by content, at most 10 MB.")
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary))),
            )
            .required("file")
            .property(
                "metadata",
                text("JSON text: `{\"appPackageName\"?: string, \"replaceImageId\"?: string}`."),
            )
            .property(
                "replaceImageId",
                text(
                    "The image this upload replaces: an id or a delivery URL; its file and row are removed.",
                ),
            )
            .into()
    }
}

impl utoipa::ToSchema for UploadForm {}

/// The parts of an upload, read with their limits.
#[derive(Default)]
pub(super) struct UploadParts {
    file: Option<Vec<u8>>,
    metadata: Option<String>,
    replace: Option<String>,
}

pub(super) async fn read_upload(
    request: &HttpRequest,
    payload: web::Payload,
) -> Result<UploadParts, ApiError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse::<usize>().ok());
    if declared.is_some_and(|length| length > MAX_IMAGE_BYTES + MAX_FORM_OVERHEAD) {
        return Err(image_too_large());
    }
    read_parts(Multipart::new(request.headers(), payload)).await
}

/// Reads the parts as they stream in, each with its limit.
async fn read_parts(mut multipart: Multipart) -> Result<UploadParts, ApiError> {
    let mut parts = UploadParts::default();
    let mut count = 0;
    while let Some(field) = multipart.next().await {
        let mut field = field.map_err(|e| multipart_error(&e))?;
        count += 1;
        if count > MAX_PARTS {
            return Err(ApiError::bad_request(
                "INVALID_MULTIPART",
                "The upload has too many parts.",
            ));
        }
        let name = field.name().unwrap_or_default().to_owned();
        let duplicate =
            || ApiError::bad_request("INVALID_MULTIPART", format!("The `{name}` part is sent twice."));
        match name.as_str() {
            "file" if parts.file.is_some() => return Err(duplicate()),
            "file" => parts.file = Some(read_part(&mut field, MAX_IMAGE_BYTES, image_too_large).await?),
            "metadata" if parts.metadata.is_some() => return Err(duplicate()),
            "metadata" => {
                let bytes = read_part(&mut field, MAX_TEXT_PART, part_too_large).await?;
                parts.metadata = Some(text_of(bytes, "metadata")?);
            }
            "replaceImageId" if parts.replace.is_some() => return Err(duplicate()),
            "replaceImageId" => {
                let bytes = read_part(&mut field, MAX_TEXT_PART, part_too_large).await?;
                parts.replace = Some(text_of(bytes, "replaceImageId")?);
            }
            other => {
                return Err(ApiError::bad_request(
                    "INVALID_MULTIPART",
                    format!(
                        "Unexpected form part `{other}`: send `file`, and optionally `metadata` and `replaceImageId`."
                    ),
                ));
            }
        }
    }
    Ok(parts)
}

/// Turns the read parts into the domain's request.
pub(super) fn upload_request(parts: UploadParts) -> Result<UploadRequest, ApiError> {
    let Some(bytes) = parts.file else {
        return Err(ApiError::bad_request("FILE_REQUIRED", FILE_REQUIRED));
    };
    let metadata: UploadMetadata = match parts.metadata.as_deref() {
        None | Some("") => UploadMetadata::default(),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            ApiError::bad_request(
                "INVALID_METADATA",
                format!("The `metadata` part is not the expected JSON: {e}"),
            )
        })?,
    };
    let app_package = match metadata.app_package_name.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(PackageName::parse(text).map_err(|error| {
            let message = error.to_string();
            ApiError::Validation {
                message: message.clone(),
                fields: BTreeMap::from([("appPackageName".to_owned(), message)]),
            }
        })?),
    };
    let replace = match parts.replace.or(metadata.replace_image_id) {
        Some(text) if !text.trim().is_empty() => {
            // A reference that is no image id cannot name one of the organization's images.
            Some(parse_image_ref(&text).ok_or_else(|| ApiError::NotFound(IMAGE_NOT_FOUND.into()))?)
        }
        _ => None,
    };
    Ok(UploadRequest {
        bytes,
        app_package,
        replace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::ResponseError;
    use domain::common::ImageId;
    use std::sync::Arc;

    /// A multipart body whose file part does not end before 25 MB, counting the chunks the reader pulls. Each
    /// chunk arrives after a pause (as from a socket), so the reader gets to act between chunks.
    fn endless_file_part(pulled: Arc<std::sync::atomic::AtomicUsize>) -> Multipart {
        use std::sync::atomic::Ordering;
        const CHUNKS: usize = 400;
        let head = actix_web::web::Bytes::from_static(
            b"--XYZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\n\x89PNG\r\n\x1a\n",
        );
        let chunk = actix_web::web::Bytes::from(vec![0_u8; 64 * 1024]);
        let body = futures_util::stream::unfold(0_usize, move |sent| {
            let chunk = chunk.clone();
            let pulled = pulled.clone();
            async move {
                tokio::task::yield_now().await;
                if sent == CHUNKS {
                    return None;
                }
                pulled.fetch_add(1, Ordering::Relaxed);
                Some((Ok::<_, actix_web::error::PayloadError>(chunk), sent + 1))
            }
        });
        let stream = futures_util::stream::once(async move { Ok(head) }).chain(body);
        let mut headers = actix_web::http::header::HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("multipart/form-data; boundary=XYZ"),
        );
        Multipart::new(&headers, stream)
    }

    #[actix_web::test]
    async fn a_file_part_is_refused_as_soon_as_it_passes_ten_megabytes() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pulled = Arc::new(AtomicUsize::new(0));
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            read_parts(endless_file_part(pulled.clone())),
        )
        .await
        .expect("the reader stops at the limit instead of reading an endless body");
        let error = read.err().unwrap();
        assert_eq!(error.status_code().as_u16(), 413);
        assert_eq!(error.to_string(), "Image size must be less than 10MB");
        let read_bytes = pulled.load(Ordering::Relaxed) * 64 * 1024;
        assert!(
            read_bytes <= MAX_IMAGE_BYTES + 2 * 64 * 1024,
            "read {read_bytes} bytes for a 10 MB limit"
        );
    }

    #[test]
    fn the_form_parts_become_the_domains_request() {
        let id = ImageId::new();
        let request = upload_request(UploadParts {
            file: Some(vec![1, 2]),
            metadata: Some(format!(
                r#"{{"appPackageName":"com.example.app","replaceImageId":"/api/images/{id}"}}"#
            )),
            replace: None,
        })
        .unwrap();
        assert_eq!(request.app_package.unwrap().as_str(), "com.example.app");
        assert_eq!(request.replace, Some(id));

        let missing = upload_request(UploadParts::default()).err().unwrap();
        assert_eq!(missing.code(), "FILE_REQUIRED");
        let bad_package = upload_request(UploadParts {
            file: Some(vec![1]),
            metadata: Some(r#"{"appPackageName":"Not A Package"}"#.into()),
            replace: None,
        })
        .err()
        .unwrap();
        assert_eq!(bad_package.code(), "VALIDATION");
        let bad_ref = upload_request(UploadParts {
            file: Some(vec![1]),
            metadata: None,
            replace: Some("https://elsewhere.example/logo.png".into()),
        })
        .err()
        .unwrap();
        assert_eq!(bad_ref.code(), "NOT_FOUND");
        let bad_json = upload_request(UploadParts {
            file: Some(vec![1]),
            metadata: Some("{".into()),
            replace: None,
        })
        .err()
        .unwrap();
        assert_eq!(bad_json.code(), "INVALID_METADATA");
    }
}
