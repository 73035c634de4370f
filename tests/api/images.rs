//! Images end to end (specification §7 "Images", PRODUCT.md §4): upload, delivery, replace and delete over
//! HTTP, on SQLite and PostgreSQL, with local disk and with an S3-compatible store (a real `moto_server`).
//! Every refused upload is checked to have stored nothing: no row, no file. Test images are made here with
//! the `image` crate.

use crate::helpers::{TestApp, spawn_app_with};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use domain::media::ImageStore as _;
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const PASSWORD: &str = "a sufficiently long passphrase 42";
const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];
const TEN_MB: usize = 10 * 1024 * 1024;

/// A server whose data folder the test can look into.
struct ImageApp {
    app: TestApp,
    data: TempDir,
}

impl ImageApp {
    async fn start(backend: Backend, extra: &[(&str, &str)]) -> Self {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().display().to_string();
        let mut vars = vec![("PORTAL_DATA_DIR", dir.as_str())];
        vars.extend_from_slice(extra);
        let app = spawn_app_with(backend, &vars).await;
        Self { app, data }
    }

    fn db(&self) -> Db {
        Db::connect(&self.app.database_url, 1).unwrap()
    }

    /// Rows of `images`.
    fn image_rows(&self) -> i64 {
        use adapter_db::schema::images::dsl;
        let mut conn = self.db().connection().unwrap();
        dsl::images.count().get_result(&mut *conn).unwrap()
    }

    fn app_package_of(&self, id: &str) -> Option<String> {
        use adapter_db::schema::images::dsl;
        let mut conn = self.db().connection().unwrap();
        dsl::images
            .find(id)
            .select(dsl::app_package)
            .first(&mut *conn)
            .unwrap()
    }

    /// Files in the local image folder (temporary ones included).
    fn image_files(&self) -> Vec<PathBuf> {
        let folder = self.data.path().join("images");
        match std::fs::read_dir(&folder) {
            Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    }

    fn assert_nothing_stored(&self, what: &str) {
        assert_eq!(self.image_rows(), 0, "{what}: an image row was stored");
        assert_eq!(
            self.image_files(),
            Vec::<PathBuf>::new(),
            "{what}: a file was stored"
        );
    }

    /// Signs a developer up and answers a core token and the user id.
    async fn developer(&self, email: &str) -> Developer {
        let signed_up: Value = self
            .app
            .client
            .post(self.app.url("/auth/v1/signup"))
            .header("apikey", "built-in")
            .json(&json!({"email": email, "password": PASSWORD}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let access = signed_up["access_token"].as_str().unwrap();
        let exchanged: Value = self
            .app
            .send(
                self.app
                    .client
                    .post(self.app.url("/api/auth/exchange-token"))
                    .json(&json!({"supabaseToken": access})),
            )
            .await
            .json()
            .await
            .unwrap();
        Developer {
            token: exchanged["coreToken"].as_str().unwrap().to_owned(),
            user_id: signed_up["user"]["id"].as_str().unwrap().to_owned(),
        }
    }

    /// An organization with `admin` as its admin (written to the database directly: organizations have
    /// their own API and tests).
    fn organization(&self, admin: &Developer) -> String {
        use adapter_db::schema::organizations;
        let id = uuid::Uuid::new_v4().to_string();
        let mut conn = self.db().connection().unwrap();
        diesel::insert_into(organizations::table)
            .values((
                organizations::id.eq(&id),
                organizations::name.eq("Acme"),
                organizations::created_at.eq(0_i64),
                organizations::updated_at.eq(0_i64),
            ))
            .execute(&mut *conn)
            .unwrap();
        drop(conn);
        self.add_member(&id, admin, "admin");
        id
    }

    fn add_member(&self, org: &str, who: &Developer, role: &str) {
        use adapter_db::schema::org_members;
        let mut conn = self.db().connection().unwrap();
        diesel::insert_into(org_members::table)
            .values((
                org_members::org_id.eq(org),
                org_members::user_id.eq(&who.user_id),
                org_members::role.eq(role),
                org_members::joined_at.eq(0_i64),
            ))
            .execute(&mut *conn)
            .unwrap();
    }

    async fn upload(&self, token: Option<&str>, org: &str, file: Upload<'_>) -> reqwest::Response {
        self.upload_form(token, org, file.form()).await
    }

    async fn upload_form(&self, token: Option<&str>, org: &str, form: Form) -> reqwest::Response {
        let mut request = self
            .app
            .client
            .post(self.app.url("/api/dev/images/upload"))
            .header("x-org-id", org)
            .multipart(form);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.unwrap()
    }

    async fn delete(&self, token: Option<&str>, org: &str, id: &str) -> reqwest::Response {
        let mut request = self
            .app
            .client
            .delete(self.app.url(&format!("/api/dev/images/{id}")))
            .header("x-org-id", org);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.unwrap()
    }

    /// GET of the delivery URL's path on this server (the URL carries the configured public URL).
    async fn fetch(&self, url: &str) -> reqwest::Response {
        let path = &url[url.find("/api/images/").unwrap()..];
        self.app.client.get(self.app.url(path)).send().await.unwrap()
    }
}

struct Developer {
    token: String,
    user_id: String,
}

/// One file part, with the name and type the browser would claim.
#[derive(Clone, Copy)]
struct Upload<'a> {
    bytes: &'a [u8],
    file_name: &'a str,
    claimed_type: &'a str,
}

impl<'a> Upload<'a> {
    fn new(bytes: &'a [u8], file_name: &'a str, claimed_type: &'a str) -> Self {
        Self {
            bytes,
            file_name,
            claimed_type,
        }
    }

    fn part(self) -> Part {
        Part::bytes(self.bytes.to_vec())
            .file_name(self.file_name.to_owned())
            .mime_str(self.claimed_type)
            .unwrap()
    }

    fn form(self) -> Form {
        Form::new().part("file", self.part())
    }
}

fn encoded(format: image::ImageFormat, width: u32, height: u32) -> Vec<u8> {
    let rgba = image::RgbaImage::from_fn(width, height, |x, y| {
        image::Rgba([(x * 5 % 256) as u8, (y * 9 % 256) as u8, 120, 255])
    });
    let picture = if format == image::ImageFormat::Jpeg {
        image::DynamicImage::ImageRgb8(image::DynamicImage::ImageRgba8(rgba).to_rgb8())
    } else {
        image::DynamicImage::ImageRgba8(rgba)
    };
    let mut out = Cursor::new(Vec::new());
    picture.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFF_u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A small, valid PNG whose header declares `width`×`height` (a decompression bomb's header).
fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = encoded(image::ImageFormat::Png, 1, 1);
    bytes[16..20].copy_from_slice(&width.to_be_bytes());
    bytes[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

async fn status_and_code(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    (status, body["code"].as_str().unwrap_or_default().to_owned())
}

fn id_of(url: &str) -> &str {
    url.rsplit('/').next().unwrap()
}

async fn url_of(response: reqwest::Response) -> String {
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["url"].as_str().unwrap().to_owned()
}

/// Uploads, fetches and deletes one image, checking the stored row and file at each step.
async fn round_trip(
    server: &ImageApp,
    dev: &Developer,
    org: &str,
    bytes: &[u8],
    upload: Upload<'_>,
    served_as: &str,
) {
    let url = url_of(server.upload(Some(&dev.token), org, upload).await).await;
    assert!(url.starts_with("http://127.0.0.1:8080/api/images/"), "{url}");
    let id = id_of(&url);

    let fetched = server.fetch(&url).await;
    assert_eq!(fetched.status(), StatusCode::OK);
    let headers = fetched.headers().clone();
    assert_eq!(headers["content-type"], served_as);
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["content-disposition"], "inline");
    assert!(
        headers["cache-control"]
            .to_str()
            .unwrap()
            .contains("max-age=31536000")
    );
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("default-src 'none'"),
        "{:?}",
        headers["content-security-policy"]
    );
    assert_eq!(fetched.bytes().await.unwrap().as_ref(), bytes);
    assert_eq!(server.image_rows(), 1);

    let deleted = server.delete(Some(&dev.token), org, id).await;
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_eq!(deleted.json::<Value>().await.unwrap(), json!({"success": true}));
    assert_eq!(
        status_and_code(server.fetch(&url).await).await,
        (404, "NOT_FOUND".into())
    );
    assert_eq!(
        status_and_code(server.delete(Some(&dev.token), org, id).await).await,
        (404, "NOT_FOUND".into())
    );
    server.assert_nothing_stored("after the delete");
}

#[tokio::test]
async fn each_allowed_format_round_trips_and_delete_removes_row_and_file() {
    for backend in BACKENDS {
        let server = ImageApp::start(backend, &[]).await;
        let dev = server.developer("dev@example.com").await;
        let org = server.organization(&dev);
        for (format, name, content_type) in [
            (image::ImageFormat::Png, "logo.png", "image/png"),
            (image::ImageFormat::Jpeg, "logo.jpg", "image/jpeg"),
            (image::ImageFormat::Gif, "logo.gif", "image/gif"),
            (image::ImageFormat::WebP, "logo.webp", "image/webp"),
        ] {
            let bytes = encoded(format, 64, 48);
            round_trip(
                &server,
                &dev,
                &org,
                &bytes,
                Upload::new(&bytes, name, content_type),
                content_type,
            )
            .await;
        }

        // Local files are private to the server's user.
        use std::os::unix::fs::PermissionsExt;
        let png = encoded(image::ImageFormat::Png, 8, 8);
        let form = Upload::new(&png, "icon.png", "image/png")
            .form()
            .text("metadata", r#"{"appPackageName":"com.example.glasses"}"#);
        let url = url_of(server.upload_form(Some(&dev.token), &org, form).await).await;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let files = server.image_files();
        assert_eq!(files.len(), 1);
        assert_eq!(mode(&files[0]), 0o600);
        assert_eq!(mode(&server.data.path().join("images")), 0o700);
        assert_eq!(
            server.app_package_of(id_of(&url)).as_deref(),
            Some("com.example.glasses")
        );
    }
}

#[tokio::test]
async fn the_content_decides_the_type_and_refused_uploads_store_nothing() {
    for backend in BACKENDS {
        let server = ImageApp::start(backend, &[]).await;
        let dev = server.developer("dev@example.com").await;
        let org = server.organization(&dev);
        let token = Some(dev.token.as_str());

        // A PNG named and declared as a GIF is stored and served as the PNG it is.
        let png = encoded(image::ImageFormat::Png, 32, 32);
        round_trip(
            &server,
            &dev,
            &org,
            &png,
            Upload::new(&png, "logo.gif", "image/gif"),
            "image/png",
        )
        .await;

        let html = b"<!doctype html><script>alert(document.cookie)</script>".to_vec();
        let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.to_vec();
        let mut too_large = png.clone();
        too_large.resize(TEN_MB + 1, 0);
        let bomb = png_declaring(100_000, 100_000);
        let whole = encoded(image::ImageFormat::Png, 128, 128);
        let truncated = whole[..whole.len() / 2].to_vec();
        let cases: [(&str, Upload<'_>, (u16, &str)); 6] = [
            (
                "HTML named .png",
                Upload::new(&html, "logo.png", "image/png"),
                (415, "INVALID_IMAGE_TYPE"),
            ),
            (
                "an SVG",
                Upload::new(&svg, "logo.svg", "image/svg+xml"),
                (415, "INVALID_IMAGE_TYPE"),
            ),
            (
                "10 MB + 1 byte",
                Upload::new(&too_large, "big.png", "image/png"),
                (413, "IMAGE_TOO_LARGE"),
            ),
            (
                "a decompression bomb",
                Upload::new(&bomb, "bomb.png", "image/png"),
                (413, "IMAGE_TOO_MANY_PIXELS"),
            ),
            (
                "a truncated PNG",
                Upload::new(&truncated, "cut.png", "image/png"),
                (415, "INVALID_IMAGE_TYPE"),
            ),
            (
                "an empty file",
                Upload::new(b"", "empty.png", "image/png"),
                (415, "INVALID_IMAGE_TYPE"),
            ),
        ];
        for (what, upload, (status, code)) in cases {
            let response = server.upload(token, &org, upload).await;
            let got = response.status().as_u16();
            let body: Value = response.json().await.unwrap();
            assert_eq!(
                (got, body["code"].as_str()),
                (status, Some(code)),
                "{what}: {body}"
            );
            let message = match code {
                "INVALID_IMAGE_TYPE" => Some("Please select a valid image file (PNG, JPEG, GIF, or WebP)"),
                "IMAGE_TOO_LARGE" => Some("Image size must be less than 10MB"),
                _ => None,
            };
            if let Some(message) = message {
                assert_eq!(body["error"], message, "{what}");
            }
            server.assert_nothing_stored(what);
        }

        // A form without a file, or with something else in it, is refused too.
        let no_file = Form::new().text("metadata", "{}");
        assert_eq!(
            status_and_code(server.upload_form(token, &org, no_file).await).await,
            (400, "FILE_REQUIRED".into())
        );
        let extra = Upload::new(&png, "a.png", "image/png").form().text("other", "x");
        assert_eq!(
            status_and_code(server.upload_form(token, &org, extra).await).await,
            (400, "INVALID_MULTIPART".into())
        );
        let not_multipart = server
            .app
            .send(
                server
                    .app
                    .client
                    .post(server.app.url("/api/dev/images/upload"))
                    .bearer_auth(&dev.token)
                    .header("x-org-id", &org)
                    .header("content-type", "image/png")
                    .body(png.clone()),
            )
            .await;
        assert_eq!(status_and_code(not_multipart).await.0, 415);
        server.assert_nothing_stored("malformed forms");
    }
}

#[tokio::test]
async fn only_members_upload_replace_and_delete_and_anonymous_callers_are_refused() {
    for backend in BACKENDS {
        let server = ImageApp::start(backend, &[]).await;
        let owner = server.developer("owner@example.com").await;
        let member = server.developer("member@example.com").await;
        let outsider = server.developer("outsider@example.com").await;
        let org = server.organization(&owner);
        server.add_member(&org, &member, "member");
        let outsiders_org = server.organization(&outsider);
        let png = encoded(image::ImageFormat::Png, 16, 16);
        let upload = Upload::new(&png, "logo.png", "image/png");

        // Anonymous: 401, nothing stored.
        assert_eq!(
            status_and_code(server.upload(None, &org, upload).await).await.0,
            401
        );
        // A forged x-org-id (an organization the caller is not in): 403, nothing stored.
        assert_eq!(
            status_and_code(server.upload(Some(&outsider.token), &org, upload).await)
                .await
                .0,
            403
        );
        server.assert_nothing_stored("refused callers");

        let url = url_of(server.upload(Some(&owner.token), &org, upload).await).await;
        let id = id_of(&url).to_owned();

        // The outsider can neither delete nor replace it, whichever organization the header names.
        for header_org in [&org, &outsiders_org] {
            let (status, _) =
                status_and_code(server.delete(Some(&outsider.token), header_org, &id).await).await;
            assert!(
                status == 403 || status == 404,
                "delete through {header_org}: {status}"
            );
            let replace = upload.form().text("replaceImageId", url.clone());
            let (status, _) = status_and_code(
                server
                    .upload_form(Some(&outsider.token), header_org, replace)
                    .await,
            )
            .await;
            assert!(
                status == 403 || status == 404,
                "replace through {header_org}: {status}"
            );
        }
        assert_eq!(status_and_code(server.delete(None, &org, &id).await).await.0, 401);
        assert_eq!(server.image_rows(), 1);
        assert_eq!(server.image_files().len(), 1);
        assert_eq!(server.fetch(&url).await.status(), StatusCode::OK);

        // A member replaces it: a new URL, the old one gone with its row and file.
        let new_png = encoded(image::ImageFormat::Png, 20, 20);
        let replace = Upload::new(&new_png, "logo.png", "image/png")
            .form()
            .text("replaceImageId", url.clone());
        let new_url = url_of(server.upload_form(Some(&member.token), &org, replace).await).await;
        assert_ne!(new_url, url);
        assert_eq!(server.fetch(&url).await.status(), StatusCode::NOT_FOUND);
        let fetched = server.fetch(&new_url).await;
        assert_eq!(fetched.bytes().await.unwrap().as_ref(), new_png.as_slice());
        assert_eq!(server.image_rows(), 1);
        let files = server.image_files();
        assert_eq!(files.len(), 1);
        assert!(files[0].ends_with(id_of(&new_url)));

        // The member deletes it.
        let deleted = server.delete(Some(&member.token), &org, id_of(&new_url)).await;
        assert_eq!(deleted.status(), StatusCode::OK);
        server.assert_nothing_stored("after the member's delete");
    }
}

#[tokio::test]
async fn with_an_s3_compatible_store_images_live_in_the_bucket() {
    let moto = adapter_media::testing::MotoServer::start();
    for backend in BACKENDS {
        let bucket = format!("portal-{}", format!("{backend:?}").to_lowercase());
        let settings = moto.bucket(&bucket);
        let endpoint = moto.endpoint();
        let server = ImageApp::start(
            backend,
            &[
                ("PORTAL_IMAGE_STORE", "s3"),
                ("PORTAL_S3_BUCKET", &bucket),
                ("PORTAL_S3_ENDPOINT", &endpoint),
                ("PORTAL_S3_REGION", "us-east-1"),
                ("PORTAL_S3_ACCESS_KEY_ID", "test-key-id"),
                ("PORTAL_S3_SECRET_ACCESS_KEY", "test-secret"),
            ],
        )
        .await;
        let dev = server.developer("dev@example.com").await;
        let org = server.organization(&dev);
        let webp = encoded(image::ImageFormat::WebP, 24, 24);
        let url = url_of(
            server
                .upload(
                    Some(&dev.token),
                    &org,
                    Upload::new(&webp, "logo.webp", "image/webp"),
                )
                .await,
        )
        .await;
        let id = id_of(&url).to_owned();

        // The bytes are in the bucket, not on local disk.
        let bucket_store = adapter_media::S3ImageStore::new(&settings).unwrap();
        assert_eq!(
            bucket_store.get(&id).await.unwrap(),
            Some((webp.clone(), "image/webp".to_owned()))
        );
        assert!(server.image_files().is_empty());
        let fetched = server.fetch(&url).await;
        assert_eq!(fetched.headers()["content-type"], "image/webp");
        assert_eq!(fetched.bytes().await.unwrap().as_ref(), webp.as_slice());

        assert_eq!(
            server.delete(Some(&dev.token), &org, &id).await.status(),
            StatusCode::OK
        );
        assert_eq!(bucket_store.get(&id).await.unwrap(), None);
        assert_eq!(server.image_rows(), 0);
    }
}

#[tokio::test]
async fn deleting_an_app_or_an_organization_removes_its_image_files() {
    for backend in BACKENDS {
        let server = ImageApp::start(backend, &[]).await;
        let owner = server.developer("owner@example.com").await;
        let org = server.organization(&owner);
        let png = encoded(image::ImageFormat::Png, 8, 8);
        let call = |method: reqwest::Method, path: &str| {
            server
                .app
                .client
                .request(method, server.app.url(path))
                .bearer_auth(&owner.token)
                .header("x-org-id", &org)
        };

        // An app with a logo uploaded for it: deleting the app removes the row and the file.
        let registered = server.app.send(call(reqwest::Method::POST, "/api/dev/apps/register")
            .json(&json!({"packageName": "com.example.pics", "name": "Pics", "description": "Pictures",
                          "publicUrl": "https://pics.example.com", "logoURL": "https://cdn.example.com/l.png"}))).await;
        assert_eq!(registered.status(), StatusCode::CREATED);
        let form = Upload::new(&png, "logo.png", "image/png").form().text(
            "metadata",
            json!({"appPackageName": "com.example.pics"}).to_string(),
        );
        let app_logo = url_of(server.upload_form(Some(&owner.token), &org, form).await).await;
        assert_eq!(
            server.app_package_of(id_of(&app_logo)).as_deref(),
            Some("com.example.pics")
        );
        let org_logo = url_of(
            server
                .upload(
                    Some(&owner.token),
                    &org,
                    Upload::new(&png, "org.png", "image/png"),
                )
                .await,
        )
        .await;
        assert_eq!((server.image_rows(), server.image_files().len()), (2, 2));

        let deleted = server
            .app
            .send(call(reqwest::Method::DELETE, "/api/dev/apps/com.example.pics"))
            .await;
        assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
        assert_eq!(server.fetch(&app_logo).await.status(), StatusCode::NOT_FOUND);
        let files = server.image_files();
        assert_eq!((server.image_rows(), files.len()), (1, 1), "{files:?}");
        assert!(files[0].ends_with(id_of(&org_logo)));

        // Deleting the organization removes its remaining images, rows and files.
        let deleted = server
            .app
            .send(call(reqwest::Method::DELETE, &format!("/api/orgs/{org}")))
            .await;
        assert_eq!(deleted.status(), StatusCode::OK);
        server.assert_nothing_stored("after deleting the organization");
        assert_eq!(server.fetch(&org_logo).await.status(), StatusCode::NOT_FOUND);
    }
}

/// A PNG of `side`×`side` pixels of noise: it does not compress, so it takes about `side² × 4` bytes.
fn noisy_png(side: u32, seed: u32) -> Vec<u8> {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    let picture = image::RgbaImage::from_fn(side, side, |_, _| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let [a, b, c, _] = state.to_le_bytes();
        image::Rgba([a, b, c, 255])
    });
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(picture)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

#[tokio::test]
async fn an_organizations_images_stay_within_its_storage_quota() {
    for backend in BACKENDS {
        let server = ImageApp::start(backend, &[("PORTAL_ORG_IMAGE_QUOTA_MB", "1")]).await;
        let dev = server.developer("dev@example.com").await;
        let org = server.organization(&dev);
        let other = server.organization(&dev);
        let first = noisy_png(400, 1);
        let second = noisy_png(400, 2);
        assert!(first.len() > 600_000 && first.len() < 700_000, "{}", first.len());
        fn upload(bytes: &[u8]) -> Upload<'_> {
            Upload::new(bytes, "noise.png", "image/png")
        }

        let kept = url_of(server.upload(Some(&dev.token), &org, upload(&first)).await).await;
        let response = server.upload(Some(&dev.token), &org, upload(&second)).await;
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            (status, body["code"].as_str()),
            (413, Some("IMAGE_QUOTA_EXCEEDED")),
            "{backend:?}: {body}"
        );
        assert!(
            body["error"].as_str().unwrap().contains("1 MB storage quota"),
            "{body}"
        );
        assert_eq!(
            server.image_rows(),
            1,
            "{backend:?}: the refused upload stored a row"
        );
        assert_eq!(
            server.image_files().len(),
            1,
            "{backend:?}: the refused upload stored a file"
        );
        // Another organization has its own quota.
        url_of(server.upload(Some(&dev.token), &other, upload(&second)).await).await;
        // Replacing an image counts only what it adds; deleting one makes room.
        let form = Form::new()
            .part("file", upload(&second).part())
            .text("replaceImageId", id_of(&kept).to_owned());
        let replaced = url_of(server.upload_form(Some(&dev.token), &org, form).await).await;
        let response = server.delete(Some(&dev.token), &org, id_of(&replaced)).await;
        assert_eq!(response.status(), StatusCode::OK);
        url_of(server.upload(Some(&dev.token), &org, upload(&first)).await).await;
    }
}

#[tokio::test]
async fn an_account_uploads_at_most_sixty_images_an_hour() {
    for backend in BACKENDS {
        let server = ImageApp::start(backend, &[]).await;
        let dev = server.developer("dev@example.com").await;
        let org = server.organization(&dev);
        let small = encoded(image::ImageFormat::Png, 4, 4);
        for n in 0..60 {
            let response = server
                .upload(Some(&dev.token), &org, Upload::new(&small, "s.png", "image/png"))
                .await;
            assert_eq!(response.status(), StatusCode::OK, "{backend:?} upload {n}");
        }
        let response = server
            .upload(Some(&dev.token), &org, Upload::new(&small, "s.png", "image/png"))
            .await;
        let retry_after: Option<u64> = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            (status, body["code"].as_str()),
            (429, Some("RATE_LIMITED")),
            "{backend:?}: {body}"
        );
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("60 images in the last hour"),
            "{body}"
        );
        assert!(retry_after.is_some_and(|s| s > 0), "{retry_after:?}");
        assert_eq!(server.image_rows(), 60);
        // Another member of the organization still uploads.
        let colleague = server.developer("colleague@example.com").await;
        server.add_member(&org, &colleague, "member");
        url_of(
            server
                .upload(
                    Some(&colleague.token),
                    &org,
                    Upload::new(&small, "s.png", "image/png"),
                )
                .await,
        )
        .await;
    }
}
