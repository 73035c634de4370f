//! Images: upload checks by content, metadata, storage ports and the upload/replace/delete use cases.
//! Pixel-dimension limits are checked by the adapter that decodes images; this context checks type (by
//! magic bytes) and size.

pub mod models;
pub mod ports;
pub mod service;

pub use models::{ImageFormat, ImageMeta, ImageRejection};
pub use ports::{ImageRepository, ImageStore};
pub use service::{MediaConfig, MediaError, MediaService, UploadRequest, UploadedImage};
