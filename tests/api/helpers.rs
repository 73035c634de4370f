//! `spawn_app()`: a real server on a free port with its own data and frontend folders.

use adapter_db::Backend;
use adapter_db::testing::TestDb;
use app_server::{Application, Config};
use std::collections::HashMap;
use tempfile::TempDir;

pub struct TestApp {
    pub address: String,
    /// The database the server uses (the same file or schema).
    pub database_url: String,
    pub client: reqwest::Client,
    /// The built web UI this server serves (a tiny stand-in written by the helper).
    pub frontend: TempDir,
    _data: TempDir,
    /// The PostgreSQL schema of a server started on PostgreSQL (dropped with the app).
    pub database: Option<TestDb>,
    /// The server's own database handle (`None` for a view of another instance): its pool's figures.
    pub server_db: Option<adapter_db::Db>,
}

/// Starts one server instance on `database_url` with the test settings (and `extra` on top); answers its base
/// address and the database URL it runs on.
async fn start_instance(
    frontend: &std::path::Path,
    data: &std::path::Path,
    database_url: &str,
    extra: &[(&str, &str)],
) -> (String, String, adapter_db::Db) {
    let vars: HashMap<String, String> = [
        ("PORTAL_BIND", "127.0.0.1:0".to_owned()),
        ("PORTAL_FRONTEND_DIR", frontend.display().to_string()),
        ("PORTAL_DATA_DIR", data.display().to_string()),
        ("DATABASE_URL", database_url.to_owned()),
        ("PORTAL_UPTIME_INTERVAL_SECS", "0".to_owned()),
        // Staff act without a second factor here (as in local development); the tests of the staff
        // requirement set it back to `required`.
        ("PORTAL_STAFF_MFA", "optional".to_owned()),
        // Tests read links and codes from the outbox; a delivered e-mail loses them. Tests of delivery
        // turn the worker back on.
        ("PORTAL_MAIL_WORKER", "false".to_owned()),
        // Only requests use the database (tests count its statements); webhook tests turn it back on.
        ("PORTAL_WEBHOOK_WORKER", "false".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .chain(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())))
    .collect();
    let mut config = Config::from_vars(&vars).expect("config");
    config.password_hashing = adapter_identity::HashCost::TestsOnly;
    let application = Application::build(&config).await.expect("build");
    let address = format!("http://127.0.0.1:{}", application.port());
    let db = application.database();
    tokio::spawn(application.run_until_stopped());
    (address, config.database_url, db)
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// The JSON body of an anonymous `GET path` (checked against the OpenAPI document, [`Self::send`]).
    pub async fn get_json(&self, path: &str) -> serde_json::Value {
        self.send(self.client.get(self.url(path)))
            .await
            .json()
            .await
            .unwrap()
    }

    /// Sends a request to this server; the answer is checked against the served OpenAPI document
    /// ([`crate::contract`]: a route, status or body it does not describe fails the test).
    pub async fn send(&self, request: reqwest::RequestBuilder) -> reqwest::Response {
        crate::contract::send_checked(&self.address, request).await
    }
}

/// A server on a fresh SQLite database (the default).
pub async fn spawn_app() -> TestApp {
    spawn_app_on(Backend::Sqlite).await
}

/// A server on a fresh database of the given backend.
pub async fn spawn_app_on(backend: Backend) -> TestApp {
    spawn_app_with(backend, &[]).await
}

/// A server on a fresh database, with extra configuration variables.
pub async fn spawn_app_with(backend: Backend, extra: &[(&str, &str)]) -> TestApp {
    let frontend = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        frontend.path().join("index.html"),
        "<!doctype html><title>Developer Portal</title>",
    )
    .expect("index");
    std::fs::create_dir(frontend.path().join("assets")).expect("assets dir");
    std::fs::write(frontend.path().join("assets/app-1234.js"), "console.log('hi')").expect("asset");
    let data = tempfile::tempdir().expect("temp dir");
    let (database_url, database) = match backend {
        Backend::Sqlite => (format!("sqlite://{}/portal.db", data.path().display()), None),
        Backend::Postgres => {
            // Left unmigrated: the server must migrate it itself.
            let test_db = adapter_db::testing::empty(Backend::Postgres);
            (test_db.url().to_owned(), Some(test_db))
        }
    };
    let (address, database_url, db) =
        start_instance(frontend.path(), data.path(), &database_url, extra).await;
    TestApp {
        address,
        database_url,
        client: reqwest::Client::new(),
        frontend,
        _data: data,
        database,
        server_db: Some(db),
    }
}

/// A server on the database at `database_url` (already created, not necessarily migrated), for tests that
/// bring their own database server.
pub async fn spawn_app_at(database_url: &str, extra: &[(&str, &str)]) -> TestApp {
    let frontend = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        frontend.path().join("index.html"),
        "<!doctype html><title>Developer Portal</title>",
    )
    .expect("index");
    let data = tempfile::tempdir().expect("temp dir");
    let (address, database_url, db) = start_instance(frontend.path(), data.path(), database_url, extra).await;
    TestApp {
        address,
        database_url,
        client: reqwest::Client::new(),
        frontend,
        _data: data,
        database: None,
        server_db: Some(db),
    }
}

impl TestApp {
    /// Starts another server instance on the same database (its own data folder, kept with `data`), as
    /// a second instance behind a load balancer; answers its base address. `extra` as [`spawn_app_with`].
    pub async fn second_instance(&self, data: &TempDir, extra: &[(&str, &str)]) -> String {
        start_instance(self.frontend.path(), data.path(), &self.database_url, extra)
            .await
            .0
    }

    /// A handle on this same instance whose requests come from the client address `ip` (an
    /// `X-Forwarded-For` the server trusts when `PORTAL_TRUSTED_PROXIES` names 127.0.0.1): limits per
    /// client address then count each handle apart.
    pub fn as_client(&self, ip: &str) -> Self {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("X-Forwarded-For", ip.parse().expect("an address"));
        Self {
            client: reqwest::Client::builder()
                .default_headers(headers)
                .build()
                .expect("a client"),
            ..self.view_at(self.address.clone())
        }
    }

    /// A handle on another instance at `address` that shares this app's database (the handle owns no
    /// folder or schema: dropping it removes nothing of this app's).
    pub fn view_at(&self, address: String) -> Self {
        Self {
            address,
            database_url: self.database_url.clone(),
            client: self.client.clone(),
            frontend: TempDir::new().expect("temp dir"),
            _data: TempDir::new().expect("temp dir"),
            database: None,
            server_db: None,
        }
    }
}

/// A user made through the identity service and the product API, as a browser makes one.
pub struct User {
    pub id: String,
    /// The product API's core token.
    pub token: String,
}

impl TestApp {
    /// Signs a new user up (without SMTP the address is confirmed at once), signs in and exchanges the
    /// access token for a core token.
    pub async fn new_user(&self, email: &str) -> User {
        let password = "a sufficiently long passphrase 42";
        let auth = |path: &str| {
            self.client
                .post(self.url(&format!("/auth/v1{path}")))
                .header("apikey", "built-in")
                .header("Authorization", "Bearer built-in")
        };
        let signed_up = auth("/signup")
            .json(&serde_json::json!({"email": email, "password": password}))
            .send()
            .await
            .expect("sign-up");
        assert_eq!(signed_up.status(), reqwest::StatusCode::OK, "sign-up of {email}");
        let session: serde_json::Value = auth("/token?grant_type=password")
            .json(&serde_json::json!({"email": email, "password": password}))
            .send()
            .await
            .expect("sign-in")
            .json()
            .await
            .expect("session");
        let access = session["access_token"].as_str().expect("access token");
        let exchanged: serde_json::Value = self
            .send(
                self.client
                    .post(self.url("/api/auth/exchange-token"))
                    .json(&serde_json::json!({"supabaseToken": access})),
            )
            .await
            .json()
            .await
            .expect("core token");
        User {
            id: session["user"]["id"].as_str().expect("user id").to_owned(),
            token: exchanged["coreToken"].as_str().expect("core token").to_owned(),
        }
    }

    /// A product API call with a bearer (none for `""`) and an optional JSON body.
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<serde_json::Value>,
    ) -> reqwest::Response {
        let mut request = self.client.request(method, self.url(path));
        if !token.is_empty() {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        self.send(request).await
    }
}

/// Compares `actual` with the snapshot `tests/api/snapshots/<name>.json`; with `UPDATE_SNAPSHOTS=1` the
/// snapshot is written instead. Error bodies are pinned this way: a changed message or code is a visible
/// change in review, not an accident.
pub fn assert_snapshot(name: &str, actual: &serde_json::Value) {
    let path = std::path::PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for the tests it runs"),
    )
    .join("snapshots")
    .join(format!("{name}.json"));
    let pretty = format!("{}\n", serde_json::to_string_pretty(actual).expect("json"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().expect("folder")).expect("snapshot folder");
        std::fs::write(&path, pretty).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}: run with UPDATE_SNAPSHOTS=1 and review it",
            path.display()
        )
    });
    assert_eq!(
        pretty, expected,
        "{name} differs from its snapshot (UPDATE_SNAPSHOTS=1 rewrites it; review the change)"
    );
}
