//! [`S3ImageStore`]: image bytes in an S3-compatible bucket (AWS S3, MinIO, Garage, Ceph…) through
//! `object_store`, chosen with `PORTAL_IMAGE_STORE=s3`.
//!
//! Objects are named `images/{key}` ([`crate::check_key`] keeps keys plain) and carry their content type
//! as the object's `Content-Type`. With a custom endpoint, requests are path-style
//! (`{endpoint}/{bucket}/images/{key}`), which every S3-compatible server understands; plain `http://`
//! is allowed only when the endpoint says so. Retries are few and short, so that a storage outage fails an
//! upload in seconds instead of holding the request for minutes.

use async_trait::async_trait;
use domain::common::RepoError;
use domain::media::ImageStore;
use domain::media::models::MAX_IMAGE_BYTES;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path;
use object_store::{
    Attribute, Attributes, ClientOptions, ObjectStore, ObjectStoreExt, PutOptions, PutPayload, RetryConfig,
};
use std::time::Duration;

use crate::check_key;

/// The folder of the bucket the images are in.
pub const PREFIX: &str = "images";
/// The largest object read back (an image is at most 10 MB; anything far larger was not put there by us).
const MAX_OBJECT_BYTES: u64 = 2 * MAX_IMAGE_BYTES as u64;

/// Where the bucket is and how to sign in to it.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Settings {
    pub bucket: String,
    /// An S3-compatible server's URL (`PORTAL_S3_ENDPOINT`); `None` for AWS itself.
    pub endpoint: Option<String>,
    pub region: String,
    /// With `secret_access_key`; when both are `None`, the usual AWS sources apply (`AWS_*` variables,
    /// instance or container credentials).
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
}

impl std::fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("bucket", &self.bucket)
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

/// Image bytes in an S3-compatible bucket.
#[derive(Debug)]
pub struct S3ImageStore {
    store: AmazonS3,
}

impl S3ImageStore {
    /// A client of the bucket (nothing is sent until the first call).
    ///
    /// # Errors
    /// When the settings cannot make a client (e.g. a malformed endpoint).
    pub fn new(settings: &S3Settings) -> Result<Self, object_store::Error> {
        let retry = RetryConfig {
            max_retries: 2,
            retry_timeout: Duration::from_secs(10),
            ..RetryConfig::default()
        };
        let client = ClientOptions::new()
            .with_connect_timeout(Duration::from_secs(5))
            .with_timeout(Duration::from_secs(30));
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(&settings.bucket)
            .with_region(&settings.region)
            .with_retry(retry)
            .with_client_options(client);
        if let Some(endpoint) = &settings.endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_virtual_hosted_style_request(false)
                .with_allow_http(endpoint.starts_with("http://"));
        }
        if let (Some(id), Some(secret)) = (&settings.access_key_id, &settings.secret_access_key) {
            builder = builder.with_access_key_id(id).with_secret_access_key(secret);
        }
        Ok(Self {
            store: builder.build()?,
        })
    }

    fn path_of(key: &str) -> Result<Path, RepoError> {
        Ok(Path::from_iter([PREFIX, check_key(key)?]))
    }
}

fn failed(context: &'static str) -> impl FnOnce(object_store::Error) -> RepoError {
    move |error| RepoError::backend(context, error)
}

#[async_trait]
impl ImageStore for S3ImageStore {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), RepoError> {
        let path = Self::path_of(key)?;
        let content_type = crate::check_content_type(content_type)?.to_owned();
        let options = PutOptions {
            attributes: Attributes::from_iter([(Attribute::ContentType, content_type)]),
            ..PutOptions::default()
        };
        self.store
            .put_opts(&path, PutPayload::from(bytes), options)
            .await
            .map(|_| ())
            .map_err(failed("storing an image object"))
    }

    async fn get(&self, key: &str) -> Result<Option<(Vec<u8>, String)>, RepoError> {
        let path = Self::path_of(key)?;
        let found = match self.store.get(&path).await {
            Ok(found) => found,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(failed("reading an image object")(error)),
        };
        if found.meta.size > MAX_OBJECT_BYTES {
            return Err(RepoError::backend(
                "reading an image object",
                format!("{path} is {} bytes, larger than any image", found.meta.size),
            ));
        }
        let content_type = found.attributes.get(&Attribute::ContentType).map_or_else(
            || "application/octet-stream".to_owned(),
            |value| value.as_ref().to_owned(),
        );
        let bytes = found.bytes().await.map_err(failed("reading an image object"))?;
        Ok(Some((bytes.to_vec(), content_type)))
    }

    async fn delete(&self, key: &str) -> Result<(), RepoError> {
        let path = Self::path_of(key)?;
        match self.store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(failed("deleting an image object")(error)),
        }
    }
}
