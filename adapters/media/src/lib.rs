//! The media adapters: [`ImageCrateInspector`] decodes uploads under pixel limits (the `image` crate), and
//! the image stores keep their bytes, on local disk ([`LocalImageStore`], the default) or in an
//! S3-compatible bucket ([`S3ImageStore`], through `object_store`).
//!
//! Both stores accept only server-generated keys ([`check_key`]): letters, digits, `-` and `_`, so that a
//! key can never name a path outside the store.

pub mod inspect;
pub mod local;
pub mod s3;
#[cfg(feature = "testing")]
pub mod testing;

use domain::common::RepoError;

pub use inspect::ImageCrateInspector;
pub use local::LocalImageStore;
pub use s3::{S3ImageStore, S3Settings};

/// The longest key accepted (image keys are UUIDs: 36 characters).
pub const MAX_KEY_LEN: usize = 128;

/// Refuses a key that is not a plain name: empty, longer than [`MAX_KEY_LEN`], or with anything but ASCII
/// letters, digits, `-` and `_` (no `/`, `.`, `\` or NUL, so no `..`, no absolute path, no hidden file).
///
/// # Errors
/// [`RepoError::Backend`] naming the refusal (a key comes from the server, never from a client, so a bad
/// one is a bug).
pub fn check_key(key: &str) -> Result<&str, RepoError> {
    let plain = !key.is_empty()
        && key.len() <= MAX_KEY_LEN
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        Ok(key)
    } else {
        Err(RepoError::backend(
            "checking an image key",
            format!("refused the key {key:?}: only letters, digits, - and _ are allowed"),
        ))
    }
}

/// Refuses a content type that could not be stored as one header line.
fn check_content_type(content_type: &str) -> Result<&str, RepoError> {
    let plain = !content_type.is_empty()
        && content_type.len() <= 255
        && content_type.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
    if plain {
        Ok(content_type)
    } else {
        Err(RepoError::backend(
            "checking an image content type",
            format!("refused the content type {content_type:?}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_are_keys() {
        assert!(check_key("0b5c6a3e-7f1d-4c1e-9a8b-2f0e3d4c5b6a").is_ok());
        assert!(check_key("a_b-C9").is_ok());
        for bad in [
            "",
            "..",
            "../etc/passwd",
            "a/b",
            "/abs",
            ".hidden",
            "a\\b",
            "a\0b",
            "ü",
            &"x".repeat(129),
        ] {
            assert!(check_key(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn content_types_are_single_header_lines() {
        assert!(check_content_type("image/png").is_ok());
        for bad in ["", "image/png\nx", "a\r", &"x".repeat(256)] {
            assert!(check_content_type(bad).is_err(), "{bad:?}");
        }
    }
}
