//! Where image bytes are kept (`PORTAL_IMAGE_STORE`, `PORTAL_S3_*`).

use super::ConfigError;
use adapter_media::S3Settings;

/// Where image bytes are kept (`PORTAL_IMAGE_STORE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageStoreConfig {
    /// Files under `{PORTAL_DATA_DIR}/images` (the default).
    Local,
    /// An S3-compatible bucket (`PORTAL_S3_*`).
    S3(S3Settings),
}

/// The variables of the S3-compatible image store.
const S3_VARIABLES: [&str; 5] = [
    "PORTAL_S3_BUCKET",
    "PORTAL_S3_ENDPOINT",
    "PORTAL_S3_REGION",
    "PORTAL_S3_ACCESS_KEY_ID",
    "PORTAL_S3_SECRET_ACCESS_KEY",
];

/// `PORTAL_IMAGE_STORE`: `local` (default) or `s3`, which needs `PORTAL_S3_BUCKET` and takes the other
/// `PORTAL_S3_*` variables. `PORTAL_S3_*` set without `s3` is refused, so that a typo does not silently keep
/// images on local disk.
pub(super) fn image_store(get: &dyn Fn(&str) -> Option<String>) -> Result<ImageStoreConfig, ConfigError> {
    let kind = get("PORTAL_IMAGE_STORE").map(|kind| kind.to_ascii_lowercase());
    match kind.as_deref() {
        None | Some("local") => {
            if let Some(set) = S3_VARIABLES.into_iter().find(|name| get(name).is_some()) {
                return Err(ConfigError {
                    variable: "PORTAL_IMAGE_STORE",
                    problem: format!("{set} is set: use PORTAL_IMAGE_STORE=s3 to keep images in S3"),
                });
            }
            Ok(ImageStoreConfig::Local)
        }
        Some("s3") => {
            let bucket = get("PORTAL_S3_BUCKET").ok_or_else(|| ConfigError {
                variable: "PORTAL_S3_BUCKET",
                problem: "PORTAL_IMAGE_STORE=s3 needs the bucket name".into(),
            })?;
            let endpoint = get("PORTAL_S3_ENDPOINT")
                .map(|text| {
                    let host = text
                        .strip_prefix("https://")
                        .or_else(|| text.strip_prefix("http://"))
                        .and_then(|rest| rest.split('/').next())
                        .filter(|host| !host.is_empty() && !host.contains(char::is_whitespace));
                    host.map(|_| text.trim_end_matches('/').to_owned())
                        .ok_or_else(|| ConfigError {
                            variable: "PORTAL_S3_ENDPOINT",
                            problem: format!("`{text}` is not an http(s) URL"),
                        })
                })
                .transpose()?;
            let access_key_id = get("PORTAL_S3_ACCESS_KEY_ID");
            let secret_access_key = get("PORTAL_S3_SECRET_ACCESS_KEY");
            if access_key_id.is_some() != secret_access_key.is_some() {
                return Err(ConfigError {
                    variable: "PORTAL_S3_ACCESS_KEY_ID",
                    problem: "PORTAL_S3_ACCESS_KEY_ID and PORTAL_S3_SECRET_ACCESS_KEY go together".into(),
                });
            }
            Ok(ImageStoreConfig::S3(S3Settings {
                bucket,
                endpoint,
                region: get("PORTAL_S3_REGION").unwrap_or_else(|| "us-east-1".into()),
                access_key_id,
                secret_access_key,
            }))
        }
        Some(other) => Err(ConfigError {
            variable: "PORTAL_IMAGE_STORE",
            problem: format!("`{other}` is not local or s3"),
        }),
    }
}
