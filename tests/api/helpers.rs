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
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
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
    let vars: HashMap<String, String> = [
        ("PORTAL_BIND", "127.0.0.1:0".to_owned()),
        ("PORTAL_FRONTEND_DIR", frontend.path().display().to_string()),
        ("PORTAL_DATA_DIR", data.path().display().to_string()),
        ("DATABASE_URL", database_url.clone()),
        ("PORTAL_UPTIME_INTERVAL_SECS", "0".to_owned()),
        // Tests read links and codes from the outbox; a delivered e-mail loses them. Tests of delivery
        // turn the worker back on.
        ("PORTAL_MAIL_WORKER", "false".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .chain(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())))
    .collect();
    let mut config = Config::from_vars(&vars).expect("config");
    config.password_hashing = identity_adapter::HashCost::TestsOnly;
    let database_url = config.database_url.clone();
    let application = Application::build(&config).await.expect("build");
    let address = format!("http://127.0.0.1:{}", application.port());
    tokio::spawn(application.run_until_stopped());
    TestApp {
        address,
        database_url,
        client: reqwest::Client::new(),
        frontend,
        _data: data,
        database,
    }
}
