//! [`LocalImageStore`]: image bytes in files under `{PORTAL_DATA_DIR}/images`, the default store.
//!
//! - The folder is made `0700` and each file `0600`: images are served by the server, never by the file
//!   system, so no other local user needs to read them.
//! - A file is named after its key ([`crate::check_key`]: a plain name, so it stays in the folder) and
//!   holds one line with the content type, then the bytes.
//! - A write goes to a temporary file in the same folder, is synced, then renamed over the key: a reader
//!   sees the old bytes or the new ones, never half a file, and a crash leaves at worst a `.tmp-*` file.

use async_trait::async_trait;
use domain::common::RepoError;
use domain::media::ImageStore;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{check_content_type, check_key};

/// The folder's mode: the server's user only.
pub const FOLDER_MODE: u32 = 0o700;
/// Each file's mode: read and write by the server's user only.
pub const FILE_MODE: u32 = 0o600;

/// Image bytes on local disk.
#[derive(Debug)]
pub struct LocalImageStore {
    root: PathBuf,
    /// Distinguishes temporary files written at once by this process.
    next_temp: AtomicU64,
}

impl LocalImageStore {
    /// The store in `{data_dir}/images`, made (mode `0700`) when missing; an existing folder is set to
    /// `0700` too.
    ///
    /// # Errors
    /// When the folder cannot be made or its mode set.
    pub fn open(data_dir: &Path) -> std::io::Result<Self> {
        let root = data_dir.join("images");
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(FOLDER_MODE)
            .create(&root)?;
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(FOLDER_MODE))?;
        Ok(Self {
            root,
            next_temp: AtomicU64::new(0),
        })
    }

    /// The folder the files are in.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path_of(&self, key: &str) -> Result<PathBuf, RepoError> {
        Ok(self.root.join(check_key(key)?))
    }
}

fn blocking_failed(error: tokio::task::JoinError) -> RepoError {
    RepoError::backend("running a file operation", error)
}

fn write_file(temp: &Path, target: &Path, content_type: &str, bytes: &[u8]) -> std::io::Result<()> {
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .open(temp)?;
        file.write_all(content_type.as_bytes())?;
        file.write_all(b"\n")?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(temp, target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(temp);
    }
    written
}

fn read_file(path: &Path) -> Result<Option<(Vec<u8>, String)>, RepoError> {
    let mut bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(RepoError::backend("reading an image file", error)),
    };
    let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
        return Err(RepoError::backend(
            "reading an image file",
            format!("{} has no content-type line", path.display()),
        ));
    };
    let content_type = String::from_utf8(bytes[..end].to_vec())
        .map_err(|e| RepoError::backend("reading an image file's content type", e))?;
    bytes.drain(..=end);
    Ok(Some((bytes, content_type)))
}

#[async_trait]
impl ImageStore for LocalImageStore {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), RepoError> {
        let target = self.path_of(key)?;
        let content_type = check_content_type(content_type)?.to_owned();
        let serial = self.next_temp.fetch_add(1, Ordering::Relaxed);
        let temp = self
            .root
            .join(format!(".tmp-{key}-{}-{serial}", std::process::id()));
        tokio::task::spawn_blocking(move || write_file(&temp, &target, &content_type, &bytes))
            .await
            .map_err(blocking_failed)?
            .map_err(|e| RepoError::backend("writing an image file", e))
    }

    async fn get(&self, key: &str) -> Result<Option<(Vec<u8>, String)>, RepoError> {
        let path = self.path_of(key)?;
        tokio::task::spawn_blocking(move || read_file(&path))
            .await
            .map_err(blocking_failed)?
    }

    async fn delete(&self, key: &str) -> Result<(), RepoError> {
        let path = self.path_of(key)?;
        match tokio::fs::remove_file(&path).await {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(()),
            Err(error) => Err(RepoError::backend("deleting an image file", error)),
        }
    }
}
