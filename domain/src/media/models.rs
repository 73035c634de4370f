//! Image rules (specification §5, §9; PRODUCT.md §4): PNG, JPEG, GIF and WebP only, recognised by their
//! content (magic bytes, then a full decode under pixel limits), at most 10 MB; delivered at
//! `{public_base}/api/images/{id}`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::common::PackageName;
use crate::common::{ImageId, OrgId, SecretGenerator, UserId};

/// Largest upload accepted: 10 MB.
pub const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;

pub const INVALID_IMAGE_TYPE: &str = "Please select a valid image file (PNG, JPEG, GIF, or WebP)";
pub const IMAGE_TOO_LARGE: &str = "Image size must be less than 10MB";
pub const IMAGE_TOO_MANY_PIXELS: &str =
    "Image dimensions must be at most 8192 pixels per side and 16 megapixels in total";

/// Widest and tallest image accepted, in pixels. Logos are recommended at 512×512; the limit only keeps a
/// small file that declares huge dimensions (a decompression bomb) from being decoded.
pub const MAX_IMAGE_SIDE: u32 = 8192;
/// Most pixels accepted in one image (16 megapixels: 64 MB once decoded to 8-bit RGBA).
pub const MAX_IMAGE_PIXELS: u64 = 16 * 1024 * 1024;

/// The path under which images are delivered.
pub const IMAGE_PATH: &str = "/api/images/";

/// An accepted image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageFormat {
    /// Recognises the format from the first bytes of the content (never from a file name or a claimed
    /// type).
    #[must_use]
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.len() >= 12
            && bytes.starts_with(b"RIFF")
            && bytes.get(8..12) == Some(b"WEBP".as_slice())
        {
            Some(Self::Webp)
        } else {
            None
        }
    }

    #[must_use]
    pub const fn content_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    #[must_use]
    pub const fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Gif => "gif",
            Self::Webp => "webp",
        }
    }
}

/// Why an upload was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ImageRejection {
    /// Not PNG, JPEG, GIF or WebP by content (HTTP 415).
    #[error("{}", INVALID_IMAGE_TYPE)]
    InvalidType,
    /// Larger than 10 MB (HTTP 413).
    #[error("{}", IMAGE_TOO_LARGE)]
    TooLarge,
    /// Wider or taller than [`MAX_IMAGE_SIDE`], or more than [`MAX_IMAGE_PIXELS`] (HTTP 413).
    #[error("{}", IMAGE_TOO_MANY_PIXELS)]
    TooManyPixels,
}

impl ImageRejection {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::InvalidType => "INVALID_IMAGE_TYPE",
            Self::TooLarge => "IMAGE_TOO_LARGE",
            Self::TooManyPixels => "IMAGE_TOO_MANY_PIXELS",
        }
    }
}

/// What decoding an upload found (see [`super::ImageInspector`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InspectedImage {
    /// The format the decoder read the content as.
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

/// Checks what the decoder found against the format the magic bytes announced and the pixel limits.
///
/// # Errors
/// [`ImageRejection::InvalidType`] when the decoder read another format than the magic bytes say, or an
/// image without pixels; [`ImageRejection::TooManyPixels`] past [`MAX_IMAGE_SIDE`] or
/// [`MAX_IMAGE_PIXELS`].
pub fn check_inspected(announced: ImageFormat, found: InspectedImage) -> Result<(), ImageRejection> {
    if found.format != announced || found.width == 0 || found.height == 0 {
        return Err(ImageRejection::InvalidType);
    }
    if found.width > MAX_IMAGE_SIDE
        || found.height > MAX_IMAGE_SIDE
        || u64::from(found.width) * u64::from(found.height) > MAX_IMAGE_PIXELS
    {
        return Err(ImageRejection::TooManyPixels);
    }
    Ok(())
}

/// Checks an upload: size first (at most 10 MB), then type by magic bytes.
///
/// # Errors
/// [`ImageRejection::TooLarge`] or [`ImageRejection::InvalidType`] (an empty file is not an image).
pub fn check_upload(bytes: &[u8]) -> Result<ImageFormat, ImageRejection> {
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ImageRejection::TooLarge);
    }
    ImageFormat::detect(bytes).ok_or(ImageRejection::InvalidType)
}

/// A stored image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageMeta {
    pub id: ImageId,
    pub org_id: OrgId,
    pub uploaded_by: UserId,
    pub content_type: String,
    /// Bytes.
    pub size: u64,
    pub created_at: DateTime<Utc>,
    /// The app the image was uploaded for, when the upload said so (a logo is often uploaded before its
    /// app exists, so this is a hint, not a reference).
    pub app_package: Option<PackageName>,
}

impl ImageMeta {
    /// The server-generated name the bytes are stored under.
    #[must_use]
    pub fn storage_key(&self) -> String {
        storage_key(self.id)
    }
}

/// The server-generated name an image's bytes are stored under: its id.
#[must_use]
pub fn storage_key(id: ImageId) -> String {
    id.to_string()
}

/// A fresh image id drawn from the randomness port.
#[must_use]
pub fn new_image_id(secrets: &dyn SecretGenerator) -> ImageId {
    ImageId(crate::common::secrets::random_uuid(secrets))
}

/// The delivery URL of an image: `{public_base}/api/images/{id}`.
#[must_use]
pub fn image_url(public_base: &str, id: ImageId) -> String {
    format!("{}{IMAGE_PATH}{id}", public_base.trim_end_matches('/'))
}

/// Where this portal's images are linked from, and how a link to one is kept (issue 48 item 1).
///
/// A logo is stored by its key, `/api/images/{id}`, never with the address the portal had when it was
/// uploaded: a portal first tried at `http://127.0.0.1:8080` and then given its domain, or a backup restored
/// on another host, would otherwise link to an address that no longer answers. The delivery URL is built from
/// the current `PORTAL_PUBLIC_URL` whenever a logo is read, so every answer (the API, the CLI, an export, a
/// webhook, an e-mail) carries the address of today. Links to other sites are kept as they were given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageLinks {
    /// `{public_base}/api/images/`; empty when no public base is known (the stored key is then answered).
    delivery_prefix: String,
}

impl ImageLinks {
    #[must_use]
    pub fn new(public_base: &str) -> Self {
        Self {
            delivery_prefix: format!("{}{IMAGE_PATH}", public_base.trim_end_matches('/')),
        }
    }

    /// The form a logo is stored in: one of this portal's images (its delivery URL at the current address, or
    /// its key) becomes its key `/api/images/{id}`; anything else is kept as given.
    #[must_use]
    pub fn stored(&self, link: &str) -> String {
        let own_id = link
            .strip_prefix(self.delivery_prefix.as_str())
            .filter(|_| !self.delivery_prefix.is_empty())
            .or_else(|| link.strip_prefix(IMAGE_PATH))
            .and_then(|id| id.parse::<ImageId>().ok());
        own_id.map_or_else(|| link.to_owned(), |id| format!("{IMAGE_PATH}{id}"))
    }

    /// The link answered for a stored logo: an image key becomes its delivery URL at the current address.
    #[must_use]
    pub fn delivered(&self, stored: &str) -> String {
        match stored
            .strip_prefix(IMAGE_PATH)
            .and_then(|id| id.parse::<ImageId>().ok())
        {
            Some(id) if !self.delivery_prefix.is_empty() => format!("{}{id}", self.delivery_prefix),
            _ => stored.to_owned(),
        }
    }
}

/// Reads an image reference as sent by the browser: a bare id, or a delivery URL (absolute or a path,
/// with or without a query or fragment) whose last segment is the id.
#[must_use]
pub fn parse_image_ref(value: &str) -> Option<ImageId> {
    let value = value.trim();
    let without_suffix = value.split(['?', '#']).next().unwrap_or_default();
    let id_text = match without_suffix.rfind(IMAGE_PATH) {
        Some(at) => &without_suffix[at + IMAGE_PATH.len()..],
        None => without_suffix,
    };
    if id_text.contains('/') {
        return None;
    }
    id_text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RepeatingBytes;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn each_allowed_format_is_recognised_by_its_magic_bytes() {
        assert_eq!(ImageFormat::detect(PNG), Some(ImageFormat::Png));
        assert_eq!(
            ImageFormat::detect(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(ImageFormat::detect(b"GIF89a\x01\0"), Some(ImageFormat::Gif));
        assert_eq!(ImageFormat::detect(b"GIF87a\x01\0"), Some(ImageFormat::Gif));
        assert_eq!(
            ImageFormat::detect(b"RIFF\x24\0\0\0WEBPVP8 "),
            Some(ImageFormat::Webp)
        );
    }

    #[test]
    fn other_content_is_not_an_image_whatever_it_claims() {
        for bad in [
            b"".as_slice(),
            b"<svg xmlns=",
            b"%PDF-1.7",
            b"RIFF\x24\0\0\0WAVEfmt ",
            b"BM\x36\0",
        ] {
            assert_eq!(check_upload(bad), Err(ImageRejection::InvalidType), "{bad:?}");
        }
        assert_eq!(
            ImageRejection::InvalidType.to_string(),
            "Please select a valid image file (PNG, JPEG, GIF, or WebP)"
        );
    }

    #[test]
    fn an_image_of_exactly_ten_megabytes_is_accepted_and_one_byte_more_is_not() {
        let mut bytes = PNG.to_vec();
        bytes.resize(MAX_IMAGE_BYTES, 0);
        assert_eq!(check_upload(&bytes), Ok(ImageFormat::Png));
        bytes.push(0);
        assert_eq!(check_upload(&bytes), Err(ImageRejection::TooLarge));
        assert_eq!(
            ImageRejection::TooLarge.to_string(),
            "Image size must be less than 10MB"
        );
    }

    fn found(format: ImageFormat, width: u32, height: u32) -> InspectedImage {
        InspectedImage {
            format,
            width,
            height,
        }
    }

    #[test]
    fn a_decoded_image_must_be_the_announced_format() {
        assert_eq!(
            check_inspected(ImageFormat::Png, found(ImageFormat::Png, 512, 512)),
            Ok(())
        );
        assert_eq!(
            check_inspected(ImageFormat::Png, found(ImageFormat::Gif, 512, 512)),
            Err(ImageRejection::InvalidType)
        );
        assert_eq!(
            check_inspected(ImageFormat::Webp, found(ImageFormat::Webp, 0, 10)),
            Err(ImageRejection::InvalidType)
        );
    }

    #[test]
    fn pixel_limits_apply_per_side_and_in_total() {
        let png = ImageFormat::Png;
        assert_eq!(check_inspected(png, found(png, MAX_IMAGE_SIDE, 2048)), Ok(()));
        assert_eq!(check_inspected(png, found(png, 4096, 4096)), Ok(()));
        for (width, height) in [
            (MAX_IMAGE_SIDE + 1, 1),
            (1, MAX_IMAGE_SIDE + 1),
            (4097, 4096),
            (100_000, 100_000),
        ] {
            assert_eq!(
                check_inspected(png, found(png, width, height)),
                Err(ImageRejection::TooManyPixels),
                "{width}x{height}"
            );
        }
        assert_eq!(
            ImageRejection::TooManyPixels.to_string(),
            "Image dimensions must be at most 8192 pixels per side and 16 megapixels in total"
        );
    }

    #[test]
    fn content_types_and_extensions_follow_the_format() {
        assert_eq!(ImageFormat::Jpeg.content_type(), "image/jpeg");
        assert_eq!(ImageFormat::Jpeg.extension(), "jpg");
        assert_eq!(ImageFormat::Webp.content_type(), "image/webp");
    }

    #[test]
    fn the_delivery_url_is_under_the_public_base() {
        let id = new_image_id(&RepeatingBytes(3));
        assert_eq!(
            image_url("https://portal.example.com/", id),
            format!("https://portal.example.com/api/images/{id}")
        );
    }

    #[test]
    fn the_image_id_is_taken_from_a_delivery_url_or_a_bare_id() {
        let id = new_image_id(&RepeatingBytes(9));
        assert_eq!(parse_image_ref(&image_url("http://127.0.0.1:8080", id)), Some(id));
        assert_eq!(parse_image_ref(&format!("/api/images/{id}?v=2#x")), Some(id));
        assert_eq!(parse_image_ref(&format!(" {id} ")), Some(id));
    }

    #[test]
    fn a_reference_that_is_not_an_image_id_reads_as_none() {
        assert_eq!(parse_image_ref("https://example.com/logo.png"), None);
        assert_eq!(parse_image_ref("/api/images/abc/def"), None);
        assert_eq!(parse_image_ref(""), None);
    }

    #[test]
    fn an_own_image_is_stored_by_its_key_and_answered_at_the_current_address() {
        let id = new_image_id(&RepeatingBytes(5));
        let at_first = ImageLinks::new("http://127.0.0.1:8080/");
        let stored = at_first.stored(&image_url("http://127.0.0.1:8080", id));
        assert_eq!(stored, format!("/api/images/{id}"));
        assert_eq!(at_first.stored(&stored), stored, "a key stays a key");
        let later = ImageLinks::new("https://portal.example.com");
        assert_eq!(
            later.delivered(&stored),
            format!("https://portal.example.com/api/images/{id}")
        );
        assert_eq!(
            later.stored(&later.delivered(&stored)),
            stored,
            "what is answered is stored back the same"
        );
        let under_a_path = ImageLinks::new("https://example.com/portal");
        assert_eq!(
            under_a_path.stored(&format!("https://example.com/portal/api/images/{id}")),
            stored
        );
        assert_eq!(
            ImageLinks::default().delivered(&stored),
            stored,
            "no public base: the key itself"
        );
    }

    #[test]
    fn links_to_other_sites_are_kept_as_given() {
        let id = new_image_id(&RepeatingBytes(6));
        let links = ImageLinks::new("https://portal.example.com");
        for other in [
            "https://cdn.example.com/logo.png".to_owned(),
            format!("https://other-portal.example.com/api/images/{id}"),
            format!("https://portal.example.com/api/images/{id}?v=2"),
            "https://portal.example.com/api/images/not-an-id".to_owned(),
            String::new(),
        ] {
            assert_eq!(links.stored(&other), other);
            assert_eq!(links.delivered(&other), other);
        }
    }
}
