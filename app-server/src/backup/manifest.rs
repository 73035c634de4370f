//! The archive's manifest, `devportal-backup.json`: the first entry of every archive, saying what it holds.

use anyhow::{anyhow, bail};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

/// The manifest's name in the archive.
pub(super) const MANIFEST: &str = "devportal-backup.json";
/// The archive layout this binary writes and reads.
pub(super) const FORMAT: u64 = 1;
/// The most a manifest may take (it is a few hundred bytes).
const MAX_MANIFEST: u64 = 64 * 1024;

/// The archive's manifest (`devportal-backup.json`): written by [`backup`](super::backup), read back by [`restore`](super::restore).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Manifest {
    /// The archive layout ([`FORMAT`]).
    pub(super) format: u64,
    /// The version of the app-server that wrote it.
    #[serde(default)]
    pub(super) portal_version: String,
    /// When it was written (RFC 3339).
    #[serde(default)]
    pub(super) created_at: String,
    pub(super) database: HeldDatabase,
    pub(super) images: HeldImages,
    /// What the archive does not hold, for the operator.
    #[serde(default)]
    pub(super) notes: Vec<String>,
}

/// Where the database of a backup is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum HeldDatabase {
    /// The archive has `portal.db`.
    Sqlite,
    /// The archive has none: `pg_dump` has the database.
    Postgres,
}

/// Where the images of a backup are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum HeldImages {
    /// The archive has them.
    Local,
    /// They stay in the S3 bucket.
    S3,
}

/// What any format's manifest says of itself, read before the rest: a newer format gets its own message.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ManifestFormat {
    format: u64,
    portal_version: Option<String>,
}

pub(super) fn read_manifest<R: Read>(
    entries: &mut tar::Entries<'_, R>,
    file: &Path,
) -> anyhow::Result<Manifest> {
    let not_ours = || {
        anyhow!(
            "{} is not a backup of this portal (no {MANIFEST} first)",
            file.display()
        )
    };
    let mut first = entries.next().ok_or_else(not_ours)?.map_err(|_| not_ours())?;
    if first.path()?.as_os_str() != MANIFEST || first.header().size()? > MAX_MANIFEST {
        return Err(not_ours());
    }
    let mut text = String::new();
    first.read_to_string(&mut text)?;
    let ManifestFormat {
        format,
        portal_version,
    } = serde_json::from_str(&text).map_err(|_| not_ours())?;
    if format != FORMAT {
        bail!(
            "{} is a backup of format {format}; this app-server ({}) reads format {FORMAT}: restore it with \
             the version that wrote it ({})",
            file.display(),
            env!("CARGO_PKG_VERSION"),
            portal_version.as_deref().unwrap_or("unknown")
        );
    }
    serde_json::from_str(&text).map_err(|_| not_ours())
}
