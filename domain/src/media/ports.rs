//! Ports of the media context.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{ImageMeta, ImageRejection, InspectedImage};
use crate::audit::AuditEntry;
use crate::common::PackageName;
use crate::common::{ImageId, OrgId, RepoError};

/// Where image bytes live (local disk by default, S3-compatible storage optional), under server-generated
/// keys.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ImageStore: Send + Sync {
    /// Stores `bytes` under `key`, replacing anything there.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the storage fails.
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), RepoError>;

    /// The bytes and content type stored under `key`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the storage fails.
    async fn get(&self, key: &str) -> Result<Option<(Vec<u8>, String)>, RepoError>;

    /// Removes `key`; removing a missing key succeeds.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the storage fails.
    async fn delete(&self, key: &str) -> Result<(), RepoError>;
}

/// Decodes an upload whose magic bytes announced an allowed format. The adapter sets its pixel and
/// allocation limits *before* decoding, so that a small file declaring huge dimensions is refused without
/// the memory it asks for being allocated, and decodes the whole image, so that a truncated or corrupt file
/// is refused too.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ImageInspector: Send + Sync {
    /// The format and dimensions of a fully decoded image.
    ///
    /// # Errors
    /// [`ImageRejection::InvalidType`] when the content does not decode (truncated, corrupt, not an allowed
    /// format); [`ImageRejection::TooManyPixels`] when its dimensions or decoding memory pass the limits.
    async fn inspect(&self, bytes: &[u8]) -> Result<InspectedImage, ImageRejection>;
}

/// The image rows: who uploaded what, for which organization. The writes a member makes append the audit
/// entries they are given in their own transaction.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ImageRepository: Send + Sync {
    /// Stores a new image row.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("image_id")` when the id exists; [`RepoError::Backend`] when the store fails.
    async fn insert(&self, image: &ImageMeta, audit: &AuditEntry) -> Result<(), RepoError>;

    /// The organization's image with that id.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn get(&self, org: OrgId, id: ImageId) -> Result<Option<ImageMeta>, RepoError>;

    /// Any image by id, for delivery: images are public once uploaded (logos are shown to anyone). The
    /// only unscoped read.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn get_for_delivery(&self, id: ImageId) -> Result<Option<ImageMeta>, RepoError>;

    /// Stores `new` and removes the organization's image `old`, in one transaction.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no image `old`; [`RepoError::Backend`] when the
    /// store fails.
    async fn replace(
        &self,
        org: OrgId,
        old: ImageId,
        new: &ImageMeta,
        audit: &[AuditEntry],
    ) -> Result<(), RepoError>;

    /// Removes the organization's image row.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such image; [`RepoError::Backend`] when the
    /// store fails.
    async fn delete(&self, org: OrgId, id: ImageId, audit: &AuditEntry) -> Result<(), RepoError>;

    /// Removes up to `limit` image rows created before `cutoff` that nothing refers to (no app's logo URL
    /// and no organization's logo names the image's id), oldest first, and answers them so that their files
    /// can be removed. The check and the removal are one statement: an image that gains a reference
    /// meanwhile stays.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn remove_unreferenced(
        &self,
        cutoff: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ImageMeta>, RepoError>;

    /// The bytes the organization's images take, all together (its storage quota counts them).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn total_size(&self, org: OrgId) -> Result<u64, RepoError>;

    /// The organization's images uploaded for an app, oldest first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_for_app(&self, org: OrgId, package: &PackageName) -> Result<Vec<ImageMeta>, RepoError>;
}
