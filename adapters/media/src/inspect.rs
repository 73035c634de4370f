//! [`ImageCrateInspector`]: the [`ImageInspector`] over the `image` crate (PNG, JPEG, GIF and WebP
//! decoders only).
//!
//! Limits are set on the reader *before* anything is decoded: the header is read, the dimensions are
//! checked against [`MAX_IMAGE_SIDE`] and the output buffer is reserved against [`MAX_DECODE_ALLOC`], so a
//! small file that declares 100000×100000 pixels is refused without its pixels being allocated. The whole
//! image is then decoded (a GIF's first frame), so that a truncated or corrupt file is refused too.
//! Decoding runs on the blocking pool, at most [`MAX_CONCURRENT_DECODES`] at a time, so that uploads never
//! stall the request threads and never hold more than that many decode buffers.

use async_trait::async_trait;
use domain::media::models::{MAX_IMAGE_SIDE, check_inspected};
use domain::media::{ImageFormat, ImageInspector, ImageRejection, InspectedImage};
use image::error::ImageError;
use image::{ImageReader, Limits};
use std::io::Cursor;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// The most memory one decode may allocate (the decoded pixels included): 128 MiB.
pub const MAX_DECODE_ALLOC: u64 = 128 * 1024 * 1024;
/// Decodes running at once; further uploads wait for a turn.
pub const MAX_CONCURRENT_DECODES: usize = 2;

/// Decodes uploads with the `image` crate under [`MAX_IMAGE_SIDE`] and [`MAX_DECODE_ALLOC`].
#[derive(Debug, Clone)]
pub struct ImageCrateInspector {
    turns: Arc<Semaphore>,
}

impl Default for ImageCrateInspector {
    fn default() -> Self {
        Self::new()
    }
}

impl ImageCrateInspector {
    #[must_use]
    pub fn new() -> Self {
        Self {
            turns: Arc::new(Semaphore::new(MAX_CONCURRENT_DECODES)),
        }
    }
}

#[async_trait]
impl ImageInspector for ImageCrateInspector {
    async fn inspect(&self, bytes: &[u8]) -> Result<InspectedImage, ImageRejection> {
        let Ok(_turn) = self.turns.acquire().await else {
            return Err(ImageRejection::InvalidType);
        };
        let owned = bytes.to_vec();
        tokio::task::spawn_blocking(move || inspect_now(&owned))
            .await
            .unwrap_or_else(|error| {
                tracing::error!(%error, "an image decode panicked or was cancelled");
                Err(ImageRejection::InvalidType)
            })
    }
}

/// The limits set before decoding.
fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    limits
}

const fn domain_format(format: image::ImageFormat) -> Option<ImageFormat> {
    match format {
        image::ImageFormat::Png => Some(ImageFormat::Png),
        image::ImageFormat::Jpeg => Some(ImageFormat::Jpeg),
        image::ImageFormat::Gif => Some(ImageFormat::Gif),
        image::ImageFormat::WebP => Some(ImageFormat::Webp),
        _ => None,
    }
}

fn rejection(error: &ImageError) -> ImageRejection {
    match error {
        ImageError::Limits(_) => ImageRejection::TooManyPixels,
        _ => ImageRejection::InvalidType,
    }
}

/// Decodes `bytes` in full (the current thread): the format the `image` crate recognises in them (its own
/// reading of the magic bytes, compared with the domain's by [`check_inspected`]) and the dimensions.
///
/// # Errors
/// [`ImageRejection::InvalidType`] for content that is not PNG, JPEG, GIF or WebP or does not decode;
/// [`ImageRejection::TooManyPixels`] when the declared dimensions or the decoding memory pass the limits.
pub fn inspect_now(bytes: &[u8]) -> Result<InspectedImage, ImageRejection> {
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| ImageRejection::InvalidType)?;
    let format = reader
        .format()
        .and_then(domain_format)
        .ok_or(ImageRejection::InvalidType)?;
    // Dimensions first, from the header alone: past the limits nothing more is read.
    let mut header = ImageReader::with_format(
        Cursor::new(bytes),
        reader.format().ok_or(ImageRejection::InvalidType)?,
    );
    header.limits(limits());
    let (width, height) = header.into_dimensions().map_err(|e| rejection(&e))?;
    check_inspected(
        format,
        InspectedImage {
            format,
            width,
            height,
        },
    )?;
    let mut reader = reader;
    reader.limits(limits());
    let image = reader.decode().map_err(|e| rejection(&e))?;
    Ok(InspectedImage {
        format,
        width: image.width(),
        height: image.height(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::RgbaImage;

    fn encoded(format: image::ImageFormat, width: u32, height: u32) -> Vec<u8> {
        let picture = RgbaImage::from_fn(width, height, |x, y| {
            image::Rgba([(x * 7) as u8, (y * 13) as u8, 200, 255])
        });
        let picture = if format == image::ImageFormat::Jpeg {
            image::DynamicImage::ImageRgb8(image::DynamicImage::ImageRgba8(picture).to_rgb8())
        } else {
            image::DynamicImage::ImageRgba8(picture)
        };
        let mut out = Cursor::new(Vec::new());
        picture.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    /// A valid PNG header (IHDR with its CRC) declaring `width`×`height`, with one tiny IDAT and IEND: what a
    /// decompression bomb looks like before its pixels are read.
    fn png_declaring(width: u32, height: u32) -> Vec<u8> {
        let small = encoded(image::ImageFormat::Png, 1, 1);
        let mut bytes = small.clone();
        // IHDR data starts after the signature (8), length (4) and type (4).
        bytes[16..20].copy_from_slice(&width.to_be_bytes());
        bytes[20..24].copy_from_slice(&height.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        bytes
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn each_allowed_format_decodes_with_its_dimensions() {
        for (format, expected) in [
            (image::ImageFormat::Png, ImageFormat::Png),
            (image::ImageFormat::Jpeg, ImageFormat::Jpeg),
            (image::ImageFormat::Gif, ImageFormat::Gif),
            (image::ImageFormat::WebP, ImageFormat::Webp),
        ] {
            let found = inspect_now(&encoded(format, 40, 30)).unwrap();
            assert_eq!(
                found,
                InspectedImage {
                    format: expected,
                    width: 40,
                    height: 30
                },
                "{format:?}"
            );
        }
    }

    #[test]
    fn a_png_declaring_huge_dimensions_is_refused_before_decoding() {
        let bomb = png_declaring(100_000, 100_000);
        assert_eq!(bomb.len(), encoded(image::ImageFormat::Png, 1, 1).len());
        assert_eq!(inspect_now(&bomb), Err(ImageRejection::TooManyPixels));
        // Within the side limit but past the pixel budget.
        assert_eq!(
            inspect_now(&png_declaring(8192, 8192)),
            Err(ImageRejection::TooManyPixels)
        );
    }

    /// The reader's limits alone (without the header check before them) refuse a bomb before its pixels are
    /// allocated: without them, decoding this 69-byte file asks for 40 GB.
    #[test]
    fn the_decoder_limits_alone_refuse_a_bomb() {
        for (width, height) in [(100_000, 100_000), (8192, 8192)] {
            let bomb = png_declaring(width, height);
            let mut reader = ImageReader::with_format(Cursor::new(bomb.as_slice()), image::ImageFormat::Png);
            reader.limits(limits());
            let refused = reader.decode();
            assert!(
                matches!(refused, Err(ImageError::Limits(_))),
                "{width}x{height}: {refused:?}"
            );
        }
    }

    #[test]
    fn a_truncated_png_is_refused() {
        let whole = encoded(image::ImageFormat::Png, 64, 64);
        assert!(inspect_now(&whole).is_ok());
        let truncated = &whole[..whole.len() / 2];
        assert_eq!(inspect_now(truncated), Err(ImageRejection::InvalidType));
    }

    #[test]
    fn other_formats_are_refused_even_when_the_image_crate_knows_them() {
        let bmp = b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0\x01\0\0\0\x01\0\0\0\x01\0\x18\0";
        assert_eq!(inspect_now(bmp), Err(ImageRejection::InvalidType));
        assert_eq!(
            inspect_now(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
            Err(ImageRejection::InvalidType)
        );
        assert_eq!(inspect_now(b""), Err(ImageRejection::InvalidType));
    }

    #[tokio::test]
    async fn the_port_decodes_on_the_blocking_pool() {
        let inspector = ImageCrateInspector::new();
        let png = encoded(image::ImageFormat::Png, 3, 2);
        assert_eq!(inspector.inspect(&png).await.unwrap().width, 3);
    }
}
