//! Images: upload checks by content, metadata, storage ports and the upload/replace/delete use cases.
//! This context checks size and type (by magic bytes), then asks the [`ImageInspector`] port to decode the
//! content under pixel limits and checks what it found ([`models::check_inspected`]).

pub mod models;
pub mod ports;
pub mod service;

pub use models::{ImageFormat, ImageLinks, ImageMeta, ImageRejection, InspectedImage};
pub use ports::{ImageInspector, ImageRepository, ImageStore};
pub use service::{
    MediaConfig, MediaError, MediaPorts, MediaService, UnreferencedRemoval, UploadRequest, UploadedImage,
};
