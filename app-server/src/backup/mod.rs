//! `app-server backup FILE` and `app-server restore FILE`: one `.tar.gz` archive holding a consistent copy of
//! the SQLite database (taken with `VACUUM INTO` while the portal serves) and the images of the local image
//! store, with a manifest. On PostgreSQL the database is left to `pg_dump`; the archive then holds the images
//! and says so.
//!
//! What an archive may hold, and nothing else: `devportal-backup.json` (the manifest, first), `portal.db`,
//! and `images/<key>` for each image (a key is a plain name: [`adapter_media::check_key`]).

use crate::Config;
use crate::config::ImageStoreConfig;
use adapter_media::local::{FILE_MODE, FOLDER_MODE};
use anyhow::{Context, anyhow, bail};
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

mod manifest;

use manifest::{FORMAT, HeldDatabase, HeldImages, MANIFEST, Manifest, read_manifest};

const DATABASE: &str = "portal.db";
const IMAGES: &str = "images";

/// Writes the backup archive `file` (which must not exist) for the portal configured by `config`, while it
/// serves. Answers what was written, for the operator.
///
/// # Errors
/// When `file` exists or cannot be written, or the database cannot be copied or fails its integrity check.
pub fn backup(config: &Config, file: &Path) -> anyhow::Result<String> {
    if file.exists() {
        bail!(
            "{} exists: choose a new file name (a backup never overwrites)",
            file.display()
        );
    }
    let parent = parent_of(file);
    let work = tempfile::Builder::new()
        .prefix(".devportal-backup-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    let db = adapter_db::Db::connect_for_command_with(&config.database_url, &config.database_options)?;
    let mut notes = Vec::new();
    let database = match db.backend() {
        adapter_db::Backend::Sqlite => {
            let copy = work.path().join(DATABASE);
            db.sqlite_snapshot(&copy)?;
            adapter_db::sqlite_integrity_check(&copy)?;
            Some(copy)
        }
        adapter_db::Backend::Postgres => {
            notes.push(
                "the database is on PostgreSQL and is NOT in this archive: back it up with pg_dump \
                 (pg_dump --format=custom --file=portal.dump \"$DATABASE_URL\"), at about the same time"
                    .to_owned(),
            );
            None
        }
    };
    drop(db);
    let local_images = matches!(config.image_store, ImageStoreConfig::Local);
    if !local_images {
        notes.push("the images are in the S3 bucket and are NOT in this archive: back the bucket up".into());
    }
    if config.secret_key.is_some() {
        notes.push(
            "PORTAL_SECRET_KEY is set: it is NOT in this archive; keep a copy of it with the backups (without \
             it, sessions, access tokens, e-mailed codes and second factors cannot be read after a restore)"
                .into(),
        );
    }
    let manifest = Manifest {
        format: FORMAT,
        portal_version: env!("CARGO_PKG_VERSION").to_owned(),
        created_at: chrono::Utc::now().to_rfc3339(),
        database: if database.is_some() {
            HeldDatabase::Sqlite
        } else {
            HeldDatabase::Postgres
        },
        images: if local_images {
            HeldImages::Local
        } else {
            HeldImages::S3
        },
        notes: notes.clone(),
    };

    let partial = work.path().join("archive.tar.gz");
    let out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(&partial)?;
    let mut archive = tar::Builder::new(flate2::write::GzEncoder::new(out, flate2::Compression::fast()));
    let manifest_bytes = serde_json::to_vec_pretty(&manifest)?;
    append_bytes(&mut archive, MANIFEST, &manifest_bytes)?;
    if let Some(copy) = &database {
        let mut opened = File::open(copy).with_context(|| format!("cannot read {}", copy.display()))?;
        append_file(&mut archive, DATABASE, &mut opened)?;
    }
    let mut images = 0_usize;
    if local_images {
        images = append_images(&mut archive, &config.data_dir.join(IMAGES))?;
    }
    let out = archive.into_inner()?.finish()?;
    out.sync_all()?;
    drop(out);
    // Appears whole or not at all.
    fs::hard_link(&partial, file).with_context(|| format!("cannot write {}", file.display()))?;
    let size = fs::metadata(file)?.len();
    let mut report = format!(
        "wrote {} ({} bytes): {}, {} image{}",
        file.display(),
        size,
        if database.is_some() {
            "the SQLite database (integrity_check ok)"
        } else {
            "no database (PostgreSQL)"
        },
        images,
        if images == 1 { "" } else { "s" }
    );
    for note in &notes {
        report.push_str("\nnote: ");
        report.push_str(note);
    }
    Ok(report)
}

/// Restores the archive `file` into the database and data folder `config` names, which must be empty: a
/// restore never overwrites a live portal. Answers what was restored.
///
/// # Errors
/// When the target holds a database or images, the archive is not one of ours or is damaged, or the files
/// cannot be written.
pub fn restore(config: &Config, file: &Path) -> anyhow::Result<String> {
    let sqlite_target = adapter_db::sqlite_file(&config.database_url)?;
    let images_dir = config.data_dir.join(IMAGES);
    if let Some(path) = &sqlite_target {
        for existing in [path.clone(), wal_of(path)] {
            if existing.exists() {
                bail!(
                    "{} exists: a restore never overwrites a database. Stop the portal, move its data folder \
                     aside and restore into an empty one",
                    existing.display()
                );
            }
        }
    }
    if local_images_present(&images_dir)? {
        bail!(
            "{} holds images: a restore never overwrites them. Restore into an empty data folder",
            images_dir.display()
        );
    }

    let mut archive = open_archive(file)?;
    let mut entries = archive.entries().context("not a backup archive")?;
    let manifest = read_manifest(&mut entries, file)?;
    match (&sqlite_target, manifest.database) {
        (None, HeldDatabase::Sqlite) => bail!(
            "this backup holds an SQLite database but DATABASE_URL names PostgreSQL: point DATABASE_URL at \
             an SQLite file to restore it"
        ),
        (Some(_), HeldDatabase::Postgres) => bail!(
            "this backup was taken on PostgreSQL and holds no database: restore the pg_dump taken with it \
             (pg_restore), with DATABASE_URL naming that PostgreSQL database"
        ),
        _ => {}
    }

    let staging = tempfile::Builder::new()
        .prefix(".devportal-restore-")
        .tempdir_in(parent_of(&config.data_dir.join("x")))
        .or_else(|_| tempfile::tempdir())?;
    let mut database = None;
    let mut images = Vec::new();
    for entry in entries {
        let mut entry = entry.context("the archive is damaged")?;
        let name = entry.path()?.to_string_lossy().into_owned();
        if entry.header().entry_type().is_dir() {
            continue;
        }
        if !entry.header().entry_type().is_file() {
            bail!("the archive holds {name}, which is not a plain file: refused");
        }
        if name == DATABASE && manifest.database == HeldDatabase::Sqlite && database.is_none() {
            let staged = staging.path().join(DATABASE);
            copy_out(&mut entry, &staged)?;
            database = Some(staged);
        } else if let Some(key) = name.strip_prefix("images/")
            && manifest.images == HeldImages::Local
            && adapter_media::check_key(key).is_ok()
        {
            let staged = staging.path().join(key);
            copy_out(&mut entry, &staged)?;
            images.push((key.to_owned(), staged));
        } else {
            bail!("the archive holds {name}, which a backup of this portal does not: refused");
        }
    }
    if manifest.database == HeldDatabase::Sqlite && database.is_none() {
        bail!("the archive has no {DATABASE} although its manifest says it has: it is damaged");
    }
    if let Some(staged) = &database {
        adapter_db::sqlite_integrity_check(staged)?;
    }

    // Everything read and checked: now into place.
    if !images.is_empty() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(FOLDER_MODE)
            .create(&images_dir)
            .with_context(|| format!("cannot make {}", images_dir.display()))?;
        fs::set_permissions(&images_dir, fs::Permissions::from_mode(FOLDER_MODE))?;
        for (key, staged) in &images {
            move_into_place(staged, &images_dir.join(key))?;
        }
    }
    let mut report = format!("restored from {}: ", file.display());
    if let (Some(staged), Some(target)) = (&database, &sqlite_target) {
        if let Some(folder) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(FOLDER_MODE)
                .create(folder)?;
        }
        move_into_place(staged, target)?;
        report.push_str(&format!(
            "the database into {} (integrity_check ok), ",
            target.display()
        ));
    } else {
        report.push_str("no database (restore the pg_dump taken with this backup), ");
    }
    report.push_str(&format!(
        "{} image{} into {}",
        images.len(),
        if images.len() == 1 { "" } else { "s" },
        images_dir.display()
    ));
    if manifest.images == HeldImages::S3 {
        report.push_str("\nnote: the images of this backup are in the S3 bucket, not in the archive");
    }
    report.push_str(
        "\nnote: start the portal with the PORTAL_SECRET_KEY it had (if it had one); it applies any newer \
         migrations when it starts",
    );
    Ok(report)
}

fn parent_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn wal_of(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

fn local_images_present(folder: &Path) -> anyhow::Result<bool> {
    match fs::read_dir(folder) {
        Ok(mut files) => Ok(files.next().is_some()),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(false),
        Err(error) => Err(anyhow!("cannot read {}: {error}", folder.display())),
    }
}

/// The mode of every member of an archive: `tar` (and any other unpacker) writes the portal's data
/// readable by its owner only, whatever the umask and the modes of the files it was made from.
const MEMBER_MODE: u32 = 0o600;

fn append_bytes<W: Write>(archive: &mut tar::Builder<W>, name: &str, bytes: &[u8]) -> anyhow::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(MEMBER_MODE);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_cksum();
    archive.append_data(&mut header, name, bytes)?;
    Ok(())
}

/// Adds the open `file` as the member `name`, with its size, time and owner but [`MEMBER_MODE`], not its
/// own mode.
fn append_file<W: Write>(archive: &mut tar::Builder<W>, name: &str, file: &mut File) -> anyhow::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_metadata(&file.metadata()?);
    header.set_mode(MEMBER_MODE);
    header.set_entry_type(tar::EntryType::Regular);
    archive.append_data(&mut header, name, file)?;
    Ok(())
}

/// Adds each image file (never the `.tmp-*` files of a write in progress); a file deleted meanwhile is
/// skipped. Answers how many were added.
fn append_images<W: Write>(archive: &mut tar::Builder<W>, folder: &Path) -> anyhow::Result<usize> {
    let files = match fs::read_dir(folder) {
        Ok(files) => files,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(anyhow!("cannot read {}: {error}", folder.display())),
    };
    let mut added = 0;
    for file in files {
        let file = file?;
        let name = file.file_name().to_string_lossy().into_owned();
        if adapter_media::check_key(&name).is_err() || !file.file_type()?.is_file() {
            continue;
        }
        let mut opened = match File::open(file.path()) {
            Ok(opened) => opened,
            Err(error) if error.kind() == ErrorKind::NotFound => continue,
            Err(error) => return Err(anyhow!("cannot read {}: {error}", file.path().display())),
        };
        append_file(archive, &format!("{IMAGES}/{name}"), &mut opened)?;
        added += 1;
    }
    Ok(added)
}

fn open_archive(file: &Path) -> anyhow::Result<tar::Archive<flate2::read::GzDecoder<File>>> {
    let opened = File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(tar::Archive::new(flate2::read::GzDecoder::new(opened)))
}

fn copy_out<R: Read>(entry: &mut R, to: &Path) -> anyhow::Result<()> {
    let mut out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(to)
        .with_context(|| format!("cannot write {}", to.display()))?;
    std::io::copy(entry, &mut out).context("the archive is damaged")?;
    out.sync_all()?;
    Ok(())
}

/// Moves a staged file to `target`, which must not exist (across file systems by copying).
fn move_into_place(staged: &Path, target: &Path) -> anyhow::Result<()> {
    if target.exists() {
        bail!("{} exists: a restore never overwrites", target.display());
    }
    if fs::hard_link(staged, target).is_err() {
        let mut from = File::open(staged)?;
        copy_out(&mut from, target)?;
    }
    fs::set_permissions(target, fs::Permissions::from_mode(FILE_MODE))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config_in(dir: &Path) -> Config {
        let vars: HashMap<String, String> = [
            (
                "DATABASE_URL".to_owned(),
                format!("sqlite://{}", dir.join("portal.db").display()),
            ),
            ("PORTAL_DATA_DIR".to_owned(), dir.display().to_string()),
        ]
        .into_iter()
        .collect();
        Config::from_vars(&vars).expect("config")
    }

    /// An archive with these names as written (the tar crate would refuse to write `..` itself).
    fn archive_of(path: &Path, files: &[(&str, &[u8])]) {
        let out = File::create(path).expect("create");
        let mut archive = tar::Builder::new(flate2::write::GzEncoder::new(out, flate2::Compression::fast()));
        for (name, bytes) in files {
            let mut header = tar::Header::new_old();
            header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            header.set_size(bytes.len() as u64);
            header.set_mode(0o600);
            header.set_entry_type(tar::EntryType::Regular);
            header.set_cksum();
            archive.append(&header, *bytes).expect("append");
        }
        archive.into_inner().expect("tar").finish().expect("gzip");
    }

    #[test]
    fn a_backup_restores_into_an_empty_folder_and_never_over_a_live_one() {
        let live = tempfile::tempdir().expect("temp dir");
        let config = config_in(live.path());
        crate::startup::open_database_for_command(&config).expect("a migrated database");
        fs::DirBuilder::new()
            .mode(FOLDER_MODE)
            .create(live.path().join("images"))
            .expect("images");
        fs::write(live.path().join("images/logo-1"), b"image/png\nbytes").expect("an image");
        fs::write(live.path().join("images/.tmp-7"), b"half written").expect("a write in progress");
        let file = live.path().join("backup.tar.gz");
        let report = backup(&config, &file).expect("backup");
        assert!(report.contains("1 image"), "{report}");
        assert_eq!(
            fs::metadata(&file).expect("archive").permissions().mode() & 0o777,
            0o600
        );
        assert!(
            backup(&config, &file).is_err(),
            "an existing file is not overwritten"
        );

        let refused = restore(&config, &file).expect_err("the live folder is refused");
        assert!(refused.to_string().contains("never overwrites"), "{refused}");

        let fresh = tempfile::tempdir().expect("temp dir");
        let target = config_in(fresh.path());
        restore(&target, &file).expect("restore");
        adapter_db::sqlite_integrity_check(&fresh.path().join("portal.db")).expect("sound");
        assert_eq!(
            fs::read(fresh.path().join("images/logo-1")).expect("the image"),
            b"image/png\nbytes"
        );
        assert!(!fresh.path().join("images/.tmp-7").exists());
        assert_eq!(
            fs::metadata(fresh.path().join("portal.db"))
                .expect("db")
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }

    #[test]
    fn an_archive_with_anything_else_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let manifest = br#"{"format": 1, "database": "sqlite", "images": "local"}"#;
        for (name, files) in [
            (
                "traversal",
                vec![(MANIFEST, &manifest[..]), ("images/../../etc/x", b"x".as_slice())],
            ),
            ("no manifest", vec![(DATABASE, b"x".as_slice())]),
            (
                "stranger",
                vec![(MANIFEST, &manifest[..]), ("run.sh", b"x".as_slice())],
            ),
            ("no database", vec![(MANIFEST, &manifest[..])]),
            (
                "damaged database",
                vec![(MANIFEST, &manifest[..]), (DATABASE, b"not sqlite".as_slice())],
            ),
        ] {
            let file = dir.path().join(format!("{name}.tar.gz"));
            archive_of(&file, &files);
            let target = tempfile::tempdir().expect("temp dir");
            let refused = restore(&config_in(target.path()), &file);
            assert!(refused.is_err(), "{name} was restored");
            assert!(
                !target.path().join("portal.db").exists(),
                "{name} wrote a database"
            );
            assert!(!target.path().join("images").exists(), "{name} wrote images");
        }
        let not_gzip = dir.path().join("plain.txt");
        fs::write(&not_gzip, b"hello").expect("write");
        assert!(restore(&config_in(dir.path()), &not_gzip).is_err());
    }
}
