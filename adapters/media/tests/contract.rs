//! The same contract for both image stores: local disk, and S3-compatible storage against a real
//! `moto_server` started by the test (installed by `scripts/test-tools.sh`; never skipped).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapter_media::testing::MotoServer;
use adapter_media::{LocalImageStore, S3ImageStore};
use domain::media::ImageStore;

const KEY: &str = "0b5c6a3e-7f1d-4c1e-9a8b-2f0e3d4c5b6a";

/// What every image store must do.
async fn contract(store: &dyn ImageStore) {
    // Nothing there yet; deleting nothing succeeds.
    assert_eq!(store.get(KEY).await.unwrap(), None);
    store.delete(KEY).await.unwrap();

    // Bytes and content type come back as stored, binary-safe (newlines and NULs included).
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    store.put(KEY, bytes.clone(), "image/png").await.unwrap();
    assert_eq!(
        store.get(KEY).await.unwrap(),
        Some((bytes.clone(), "image/png".to_owned()))
    );

    // A second put replaces the first, type included.
    store
        .put(KEY, b"\n\nsecond".to_vec(), "image/webp")
        .await
        .unwrap();
    assert_eq!(
        store.get(KEY).await.unwrap(),
        Some((b"\n\nsecond".to_vec(), "image/webp".to_owned()))
    );

    // Keys are independent.
    store.put("other_key", Vec::new(), "image/gif").await.unwrap();
    assert_eq!(
        store.get("other_key").await.unwrap(),
        Some((Vec::new(), "image/gif".to_owned()))
    );

    // Delete removes, and is repeatable.
    store.delete(KEY).await.unwrap();
    assert_eq!(store.get(KEY).await.unwrap(), None);
    store.delete(KEY).await.unwrap();
    assert!(store.get("other_key").await.unwrap().is_some());
    store.delete("other_key").await.unwrap();

    // Keys that could name anything but a plain object are refused by every operation.
    for bad in [
        "",
        "..",
        "../escape",
        "a/b",
        "/etc/passwd",
        ".hidden",
        "a\\b",
        "a%2Fb",
    ] {
        assert!(
            store.put(bad, b"x".to_vec(), "image/png").await.is_err(),
            "{bad:?}"
        );
        assert!(store.get(bad).await.is_err(), "{bad:?}");
        assert!(store.delete(bad).await.is_err(), "{bad:?}");
    }
    // A content type that would not fit one header line is refused.
    assert!(
        store
            .put(KEY, b"x".to_vec(), "image/png\nX-Evil: 1")
            .await
            .is_err()
    );
    assert_eq!(store.get(KEY).await.unwrap(), None);
}

#[tokio::test]
async fn local_disk_store() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let store = LocalImageStore::open(data.path()).unwrap();
    contract(&store).await;

    // Private folder and files, and nothing written outside the folder.
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(store.root()), 0o700);
    store.put(KEY, b"bytes".to_vec(), "image/png").await.unwrap();
    assert_eq!(mode(&store.root().join(KEY)), 0o600);
    let names: Vec<String> = std::fs::read_dir(store.root())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, [KEY], "only the stored key, no temporary file left");
    let outside: Vec<_> = std::fs::read_dir(data.path()).unwrap().collect();
    assert_eq!(outside.len(), 1, "only the images folder in the data folder");

    // A folder that existed with a looser mode is made private when opened.
    std::fs::set_permissions(store.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let reopened = LocalImageStore::open(data.path()).unwrap();
    assert_eq!(mode(reopened.root()), 0o700);
    assert!(reopened.get(KEY).await.unwrap().is_some());
}

#[tokio::test]
async fn s3_compatible_store_against_moto() {
    let moto = MotoServer::start();
    let store = S3ImageStore::new(&moto.bucket("portal-images")).unwrap();
    contract(&store).await;

    // The object is where an operator expects it, under images/ in the bucket.
    store.put(KEY, b"bytes".to_vec(), "image/jpeg").await.unwrap();
    let other = S3ImageStore::new(&moto.bucket("another-bucket")).unwrap();
    assert_eq!(other.get(KEY).await.unwrap(), None, "buckets are separate");

    // A bucket that does not exist is an error, not an empty answer.
    let mut missing = moto.bucket("portal-images");
    missing.bucket = "no-such-bucket".into();
    let missing = S3ImageStore::new(&missing).unwrap();
    assert!(missing.put(KEY, b"x".to_vec(), "image/png").await.is_err());
}
