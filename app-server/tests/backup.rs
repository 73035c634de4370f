//! A backup taken while the portal serves restores into a new folder and serves: writers create
//! organizations through the API while `app-server backup` runs; the portal is then stopped, the archive
//! restored with `app-server restore` into an empty folder, and a new process on it serves every organization
//! whose creation was answered before the backup began, and the image uploaded before it. The restored
//! database passes `PRAGMA integrity_check`. On SQLite (PostgreSQL's database is backed up with pg_dump).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod support;

const WRITERS: usize = 6;
const PUBLIC_URL: &str = "http://portal.test";

/// A 2×2 PNG.
const PNG: [u8; 73] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a, 0x73, 0x00,
    0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xe0, 0xaa, 0x38, 0x01, 0x44, 0x0c, 0x10,
    0x0a, 0x00, 0x21, 0x2e, 0x05, 0x29, 0x5f, 0xd7, 0x3f, 0xf5, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

fn database_url(data: &Path) -> String {
    format!("sqlite://{}", data.join("portal.db").display())
}

/// `app-server ARGS` with the settings of the portal whose files are in `data`.
fn command(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_app-server"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url(data))
        .env("PORTAL_DATA_DIR", data)
        .output()
        .unwrap()
}

/// `sh -c SCRIPT sh ARGS…` under umask 022 (the usual one), with the settings of the portal in `data`.
fn under_umask_022(data: &Path, script: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("umask 022 && {script}"))
        .arg("sh")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url(data))
        .env("PORTAL_DATA_DIR", data)
        .output()
        .unwrap()
}

/// Every file below `dir` with its permission bits.
fn modes_below(dir: &Path) -> BTreeMap<String, u32> {
    use std::os::unix::fs::PermissionsExt;
    let mut modes = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            modes.extend(modes_below(&path));
        } else {
            let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
            modes.insert(path.display().to_string(), mode);
        }
    }
    modes
}

/// The archive is the portal's data: every file in it unpacks readable by its owner only (0600) with `tar`
/// under the usual umask (022), whatever the modes of the files it was made from (here an image left 0644).
#[test]
fn every_file_of_a_backup_unpacks_private_with_tar_under_the_usual_umask() {
    use std::os::unix::fs::PermissionsExt;
    let live = tempfile::tempdir().unwrap();
    let migrated = command(live.path(), &["migrate"]);
    assert!(
        migrated.status.success(),
        "migrate: {}",
        String::from_utf8_lossy(&migrated.stderr)
    );
    let images = live.path().join("images");
    std::fs::create_dir_all(&images).unwrap();
    let image = images.join("logo-1");
    std::fs::write(&image, PNG).unwrap();
    std::fs::set_permissions(&image, std::fs::Permissions::from_mode(0o644)).unwrap();

    let archive = live.path().join("backup.tar.gz");
    let archive_text = archive.display().to_string();
    let backup = under_umask_022(
        live.path(),
        &format!("exec \"{}\" backup \"$1\"", env!("CARGO_BIN_EXE_app-server")),
        &[&archive_text],
    );
    assert!(
        backup.status.success(),
        "backup: {}",
        String::from_utf8_lossy(&backup.stderr)
    );
    let unpacked = tempfile::tempdir().unwrap();
    let unpacked_text = unpacked.path().display().to_string();
    let tar = under_umask_022(
        live.path(),
        "exec tar -xzf \"$1\" -C \"$2\"",
        &[&archive_text, &unpacked_text],
    );
    assert!(
        tar.status.success(),
        "tar: {}",
        String::from_utf8_lossy(&tar.stderr)
    );

    let modes = modes_below(unpacked.path());
    for name in ["devportal-backup.json", "portal.db", "images/logo-1"] {
        assert!(
            modes.contains_key(&unpacked.path().join(name).display().to_string()),
            "{name} is not in the archive: {modes:?}"
        );
    }
    let shared: Vec<_> = modes.iter().filter(|(_, mode)| **mode != 0o600).collect();
    assert!(
        shared.is_empty(),
        "these files unpack readable by others: {shared:?}"
    );
}

async fn json_of(response: reqwest::Response) -> Value {
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    body
}

const WRITER: &str = "writer@example.com";
const PASSWORD: &str = "a sufficiently long passphrase 42";

/// Signs a user up and answers the core token of its session.
async fn core_token(client: &reqwest::Client, base: &str) -> String {
    let session = json_of(
        client
            .post(format!("{base}/auth/v1/signup"))
            .header("apikey", "built-in")
            .json(&json!({"email": WRITER, "password": PASSWORD}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    exchanged(client, base, &session).await
}

/// Signs the user in again (a portal at another address does not take the tokens of the old one).
async fn signed_in_again(client: &reqwest::Client, base: &str) -> String {
    let session = json_of(
        client
            .post(format!("{base}/auth/v1/token?grant_type=password"))
            .header("apikey", "built-in")
            .json(&json!({"email": WRITER, "password": PASSWORD}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    exchanged(client, base, &session).await
}

/// The core token of an identity session.
async fn exchanged(client: &reqwest::Client, base: &str, session: &Value) -> String {
    let exchanged = json_of(
        client
            .post(format!("{base}/api/auth/exchange-token"))
            .json(&json!({"supabaseToken": session["access_token"].as_str().unwrap()}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    exchanged["coreToken"].as_str().unwrap().to_owned()
}

/// The organizations the user sees: id → name.
async fn organizations(client: &reqwest::Client, base: &str, token: &str) -> BTreeMap<String, String> {
    let listed = json_of(
        client
            .get(format!("{base}/api/orgs"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|org| {
            (
                org["id"].as_str().unwrap().to_owned(),
                org["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[actix_web::test]
async fn a_backup_taken_under_writers_restores_into_a_new_folder_and_serves() {
    let live = tempfile::tempdir().unwrap();
    let port = support::free_port();
    let extra = [("PORTAL_PUBLIC_URL", PUBLIC_URL)];
    let mut server = support::serve(&database_url(live.path()), live.path(), port, &extra);
    support::wait_until_up(&mut server, port).await;
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let token = core_token(&client, &base).await;
    let org = json_of(
        client
            .post(format!("{base}/api/orgs"))
            .bearer_auth(&token)
            .json(&json!({"name": "Images"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let org_id = org["data"]["id"].as_str().unwrap().to_owned();
    let part = reqwest::multipart::Part::bytes(PNG.to_vec())
        .file_name("logo.png")
        .mime_str("image/png")
        .unwrap();
    let uploaded = json_of(
        client
            .post(format!("{base}/api/dev/images/upload"))
            .bearer_auth(&token)
            .header("x-org-id", &org_id)
            .multipart(reqwest::multipart::Form::new().part("file", part))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let image_url = uploaded["url"].as_str().unwrap();
    let image_path = image_url[image_url.find("/api/images/").unwrap()..].to_owned();
    assert_eq!(image_url, format!("{PUBLIC_URL}{image_path}"));
    let profile = json_of(
        client
            .put(format!("{base}/api/orgs/{org_id}"))
            .bearer_auth(&token)
            .json(&json!({"name": "Images", "contactEmail": "ops@example.com", "logo": image_url}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(profile["data"]["profile"]["logo"], json!(image_url), "{profile}");

    // Writers create organizations until told to stop; each keeps what was acknowledged.
    let acknowledged: Arc<Mutex<BTreeMap<String, String>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let (client, base, token) = (client.clone(), base.clone(), token.clone());
            let (acknowledged, stop) = (Arc::clone(&acknowledged), Arc::clone(&stop));
            tokio::spawn(async move {
                for n in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let name = format!("Writer {writer} org {n}");
                    let Ok(answer) = client
                        .post(format!("{base}/api/orgs"))
                        .bearer_auth(&token)
                        .json(&json!({"name": name}))
                        .send()
                        .await
                    else {
                        return;
                    };
                    if answer.status() == reqwest::StatusCode::CREATED {
                        let body: Value = answer.json().await.unwrap();
                        let id = body["data"]["id"].as_str().unwrap().to_owned();
                        acknowledged.lock().unwrap().insert(id, name);
                    }
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(700)).await;

    let archive = live.path().join("backup.tar.gz");
    let before_backup = acknowledged.lock().unwrap().clone();
    let backup = {
        let (data, archive) = (live.path().to_owned(), archive.display().to_string());
        tokio::task::spawn_blocking(move || command(&data, &["backup", &archive]))
            .await
            .unwrap()
    };
    let during_backup = acknowledged.lock().unwrap().len() - before_backup.len();
    assert!(
        backup.status.success(),
        "backup: {}",
        String::from_utf8_lossy(&backup.stderr)
    );
    let report = String::from_utf8_lossy(&backup.stdout).into_owned();
    assert!(
        report.contains("integrity_check ok") && report.contains("1 image"),
        "{report}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.await.unwrap();
    }
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(
        before_backup.len() >= WRITERS && during_backup > 0,
        "the writers were busy before ({}) and during ({during_backup}) the backup",
        before_backup.len()
    );

    // A restore never goes over a live portal.
    let refused = command(live.path(), &["restore", &archive.display().to_string()]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("never overwrites"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    let restored = tempfile::tempdir().unwrap();
    let restore = command(restored.path(), &["restore", &archive.display().to_string()]);
    assert!(
        restore.status.success(),
        "restore: {}",
        String::from_utf8_lossy(&restore.stderr)
    );
    adapter_db::sqlite_integrity_check(&restored.path().join("portal.db")).unwrap();

    // Restored on another host and port: the logo is answered at the new address, where it is served.
    let port = support::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let elsewhere = [("PORTAL_PUBLIC_URL", base.as_str())];
    let mut server = support::serve(&database_url(restored.path()), restored.path(), port, &elsewhere);
    support::wait_until_up(&mut server, port).await;
    let token = signed_in_again(&client, &base).await;
    let stored = organizations(&client, &base, &token).await;
    let org = json_of(
        client
            .get(format!("{base}/api/orgs/{org_id}"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let logo = org["data"]["profile"]["logo"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let image = client.get(&logo).send().await.unwrap();
    let image_status = image.status();
    let image_bytes = image.bytes().await.unwrap();
    server.kill().unwrap();
    server.wait().unwrap();

    for (id, name) in &before_backup {
        assert_eq!(
            stored.get(id),
            Some(name),
            "an organization acknowledged before the backup began is missing from the restore"
        );
    }
    assert_eq!(stored.get(&org_id).map(String::as_str), Some("Images"));
    assert_eq!(
        logo,
        format!("{base}{image_path}"),
        "the logo follows the portal's new address"
    );
    assert_eq!(image_status, reqwest::StatusCode::OK);
    assert_eq!(
        &image_bytes[..],
        &PNG[..],
        "the restored image is served as uploaded"
    );
    eprintln!(
        "{} organizations acknowledged before the backup, {during_backup} during it; {} restored",
        before_backup.len(),
        stored.len()
    );
}
