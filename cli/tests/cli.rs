//! The `devportal` binary driven as a user drives it (assert_cmd), against a real `app-server` started by
//! the test on SQLite and on PostgreSQL (`scripts/with-postgres.sh` sets `PORTAL_TEST_DATABASE_URL`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test-only: a failed setup should panic

use adapter_db::Backend;
use adapter_db::testing::TestDb;
use app_server::{Application, Config};
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tempfile::TempDir;

const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];
const PKG: &str = "com.example.weather";

/// A real server on a free port, with its own data folder and database.
struct Server {
    address: String,
    client: reqwest::Client,
    _frontend: TempDir,
    _data: TempDir,
    _database: Option<TestDb>,
}

async fn spawn(backend: Backend) -> Server {
    let frontend = tempfile::tempdir().unwrap();
    std::fs::write(
        frontend.path().join("index.html"),
        "<!doctype html><title>Portal</title>",
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let (database_url, database) = match backend {
        Backend::Sqlite => (format!("sqlite://{}/portal.db", data.path().display()), None),
        Backend::Postgres => {
            let db = adapter_db::testing::empty(Backend::Postgres);
            (db.url().to_owned(), Some(db))
        }
    };
    let vars: HashMap<String, String> = [
        ("PORTAL_BIND", "127.0.0.1:0".to_owned()),
        ("PORTAL_FRONTEND_DIR", frontend.path().display().to_string()),
        ("PORTAL_DATA_DIR", data.path().display().to_string()),
        ("DATABASE_URL", database_url),
        ("PORTAL_UPTIME_INTERVAL_SECS", "0".to_owned()),
        ("PORTAL_MAIL_WORKER", "false".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let mut config = Config::from_vars(&vars).expect("config");
    config.password_hashing = adapter_identity::HashCost::TestsOnly;
    let application = Application::build(&config).await.expect("build");
    let address = format!("http://127.0.0.1:{}", application.port());
    tokio::spawn(application.run_until_stopped());
    Server {
        address,
        client: reqwest::Client::new(),
        _frontend: frontend,
        _data: data,
        _database: database,
    }
}

/// A personal access token for the client, and the session that made it (the test's own setup calls,
/// and revoking the token).
struct Token {
    /// `dpt_…`.
    value: String,
    id: String,
    /// The core token of the session that made it.
    core: String,
}

/// THE one place tests get a token: a user signs up through `/auth/v1` (no SMTP: confirmed at once),
/// exchanges the access token for a core token, lists their organizations (which makes the personal one)
/// and makes a personal access token of every organization with every scope, as the Access Tokens page
/// does.
async fn issue_token(server: &Server, email: &str) -> Token {
    let password = "a sufficiently long passphrase 42";
    let auth = |path: &str| {
        server
            .client
            .post(format!("{}/auth/v1{path}", server.address))
            .header("apikey", "built-in")
            .header("Authorization", "Bearer built-in")
    };
    let signed_up = auth("/signup")
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_up.status(), 200, "sign-up of {email}");
    let session: Value = auth("/token?grant_type=password")
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let access = session["access_token"].as_str().unwrap().to_owned();
    let exchanged: Value = server
        .client
        .post(format!("{}/api/auth/exchange-token", server.address))
        .json(&json!({"supabaseToken": access}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let core = exchanged["coreToken"].as_str().unwrap().to_owned();
    let (status, _) = call(server, reqwest::Method::GET, "/api/orgs", &core, None).await;
    assert_eq!(status, 200);
    let (status, made) = call(
        server,
        reqwest::Method::POST,
        "/api/dev/tokens",
        &core,
        Some(json!({
            "name": "devportal tests",
            "orgId": null,
            "scopes": ["apps:read", "apps:write", "apps:publish", "apps:keys"],
            "expiresInDays": 30,
        })),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    Token {
        value: made["token"].as_str().unwrap().to_owned(),
        id: made["id"].as_str().unwrap().to_owned(),
        core,
    }
}

/// Revokes the token [`issue_token`] gave, as its owner does on the Access Tokens page.
async fn revoke_token(server: &Server, token: &Token) {
    let (status, body) = call(
        server,
        reqwest::Method::DELETE,
        &format!("/api/dev/tokens/{}", token.id),
        &token.core,
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// A product API call made by the test itself (setup, and the server's own messages to compare with).
async fn call(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = server
        .client
        .request(method, format!("{}{path}", server.address))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

/// A user's machine: its own config directory and working directory, nothing from the test's environment.
struct Machine {
    config: TempDir,
    work: TempDir,
}

impl Machine {
    fn new() -> Self {
        Self {
            config: tempfile::tempdir().unwrap(),
            work: tempfile::tempdir().unwrap(),
        }
    }

    fn devportal(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_devportal"));
        command
            .args(args)
            .current_dir(self.work.path())
            .env("DEVPORTAL_CONFIG_DIR", self.config.path())
            .env_remove("DEVPORTAL_URL")
            .env_remove("DEVPORTAL_TOKEN")
            .env_remove("DEVPORTAL_ORG")
            .env_remove("DEVPORTAL_ALLOW_INSECURE");
        command
    }

    /// Runs a command that must succeed and answers its standard output.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.devportal(args).write_stdin("").output().unwrap();
        assert!(
            output.status.success(),
            "devportal {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// Runs a command with `--json` that must succeed and answers its output parsed.
    fn json(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let out = self.ok(&args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("devportal {args:?}: not JSON ({e}): {out}"))
    }

    fn write(&self, name: &str, value: &Value) {
        std::fs::write(
            self.work.path().join(name),
            serde_json::to_string_pretty(value).unwrap(),
        )
        .unwrap();
    }

    fn read(&self, name: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.work.path().join(name)).unwrap()).unwrap()
    }
}

/// A listener on this machine that keeps the head of every request it is sent and answers each as a portal
/// answers `/api/dev/auth/me`: where a token must not go (another portal, or the network on the way to a
/// distant one when it is the client's HTTP proxy).
struct Catcher {
    address: String,
    received: Arc<Mutex<Vec<String>>>,
}

impl Catcher {
    fn new() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let received: Arc<Mutex<Vec<String>>> = Arc::default();
        let kept = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = Vec::new();
                let mut byte = [0_u8; 1];
                while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                    head.push(byte[0]);
                }
                kept.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&head).into_owned());
                let body = r#"{"id":"u-1","email":"caught@example.com","displayName":"Caught"}"#;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Self { address, received }
    }

    /// The `Authorization` headers it was sent.
    fn authorizations(&self) -> Vec<String> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .flat_map(|head| head.lines().map(str::to_owned).collect::<Vec<_>>())
            .filter(|line| line.to_ascii_lowercase().starts_with("authorization:"))
            .collect()
    }

    fn requests(&self) -> usize {
        self.received.lock().unwrap().len()
    }
}

/// `command` with `proxy` as its HTTP proxy and nothing exempt from it.
fn through(mut command: Command, proxy: &Catcher) -> Command {
    command
        .env("HTTP_PROXY", &proxy.address)
        .env("http_proxy", &proxy.address)
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy");
    command
}

/// An SDK configuration file (`app_config.json`) in the form export writes, so that exporting it back
/// gives the same file.
fn sdk_config() -> Value {
    json!({
        "name": "Weather",
        "description": "Forecasts on your glasses",
        "version": "1.0.0",
        "onboardingInstructions": "Say 'weather'",
        "publicUrl": "https://weather.example.com",
        "logoURL": "https://cdn.example.com/weather.png",
        "webviewURL": "https://weather.example.com/webview",
        "appType": "standard",
        "permissions": [{"type": "LOCATION", "description": "For the local forecast"}],
        "settings": [
            {"type": "group", "title": "Units"},
            {"type": "select", "key": "units", "label": "Units",
             "options": [{"label": "Celsius", "value": "c"}, {"label": "Fahrenheit", "value": "f"}],
             "defaultValue": "c"},
            {"type": "toggle", "key": "alerts", "label": "Severe weather alerts", "defaultValue": true}
        ],
        "tools": [{
            "id": "forecast",
            "description": "The forecast for a city",
            "activationPhrases": ["what's the weather"],
            "parameters": {"city": {"type": "string", "description": "City", "required": true}}
        }]
    })
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

async fn a_developer_works_from_the_command_line(backend: Backend) {
    let server = spawn(backend).await;
    let token = issue_token(&server, "ada@example.com").await;
    let me = Machine::new();

    // Not signed in yet: exit 3.
    me.devportal(&["whoami"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("Not signed in").and(predicate::str::contains("devportal login")));

    // login reads the token from standard input, checks it and stores it 0600.
    me.devportal(&["login", "--url", &server.address])
        .write_stdin(format!("{}\n", token.value))
        .assert()
        .success()
        .stdout(predicate::str::contains("Signed in to").and(predicate::str::contains("ada@example.com")))
        .stderr(predicate::str::contains("does not start with dpt_").not());
    let stored = me.config.path().join("credentials.json");
    assert_eq!(mode_of(&stored), 0o600, "{backend:?}");

    let whoami = me.json(&["whoami"]);
    assert_eq!(whoami["email"], "ada@example.com", "{backend:?}");
    assert!(me.ok(&["whoami"]).contains("ada@example.com"));

    // The organization login chose; its profile is completed so that its apps can be published.
    let orgs = me.json(&["org", "list"]);
    let org = orgs["data"][0]["id"].as_str().unwrap().to_owned();
    assert!(me.ok(&["org", "list"]).contains(&org));
    let (status, body) = call(
        &server,
        reqwest::Method::PUT,
        &format!("/api/orgs/{org}"),
        &token.core,
        Some(json!({"name": "Ada's apps", "profile": {"contactEmail": "ada@example.com"}})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(me.json(&["org", "get"])["data"]["name"], "Ada's apps");
    me.ok(&["org", "switch", &org]);

    // create: every flag given; without a terminal a missing one is a usage error.
    me.devportal(&["app", "create", "--package-name", PKG])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Missing --name"));
    let created = me.json(&[
        "app",
        "create",
        "--package-name",
        PKG,
        "--name",
        "Weather draft",
        "--description",
        "Draft",
        "--public-url",
        "https://weather.example.com",
        "--logo-url",
        "https://cdn.example.com/weather.png",
        "--app-type",
        "background",
    ]);
    let first_key = created["apiKey"].as_str().unwrap().to_owned();
    assert!(first_key.starts_with("mk_"), "{first_key}");
    assert_eq!(created["app"]["packageName"], PKG);
    assert_eq!(created["app"]["appStoreStatus"], "DEVELOPMENT");
    let listed = me.json(&["app", "list"]);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert!(me.ok(&["app", "list"]).contains(PKG));

    // The repository names its app in devportal.json: the package argument can be left out.
    me.write("devportal.json", &json!({"packageName": PKG}));
    me.write("app_config.json", &sdk_config());

    // import asks first: without a terminal and without --yes it refuses (2) and changes nothing.
    me.devportal(&["app", "import", "app_config.json"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--yes"));
    let imported = me.ok(&["app", "import", "app_config.json", "--yes"]);
    for row in [
        "Weather",
        "2 (groups not counted)",
        "AI tools",
        "https://weather.example.com/webview",
    ] {
        assert!(
            imported.contains(row),
            "{row} missing from the summary:\n{imported}"
        );
    }
    let app = me.json(&["app", "get"]);
    assert_eq!(app["name"], "Weather", "{backend:?}");
    assert_eq!(app["appType"], "standard");
    assert_eq!(app["permissions"], sdk_config()["permissions"]);

    // Exported back, the file is the one imported.
    me.ok(&["app", "export", "-o", "exported.json"]);
    assert_eq!(me.read("exported.json"), sdk_config(), "{backend:?}");
    let printed: Value = serde_json::from_str(&me.ok(&["app", "export", PKG])).unwrap();
    assert_eq!(printed, sdk_config());

    // update changes only what it is given.
    let updated = me.json(&["app", "update", "--description", "Forecasts and alerts"]);
    assert_eq!(updated["description"], "Forecasts and alerts");
    assert_eq!(updated["name"], "Weather");

    // publish (asks unless --yes), then the key: printed once, new.
    me.devportal(&["app", "publish"]).write_stdin("").assert().code(2);
    let published = me.json(&["app", "publish", "--yes"]);
    assert_eq!(published["appStoreStatus"], "SUBMITTED", "{backend:?}");
    let key = me.ok(&["app", "api-key", PKG, "--yes"]);
    let key = key.trim();
    assert!(key.starts_with("mk_") && key != first_key, "{key}");
    let key_json = me.json(&["app", "api-key", "--yes"]);
    assert!(key_json["apiKey"].as_str().unwrap().starts_with("mk_"));

    // A refusal prints the server's message and exits 1.
    // (publishing again is refused: the app is SUBMITTED already)
    let (status, refusal) = {
        let answer = server
            .client
            .post(format!("{}/api/dev/apps/{PKG}/publish", server.address))
            .bearer_auth(&token.value)
            .header("x-org-id", &org)
            .send()
            .await
            .unwrap();
        (answer.status().as_u16(), answer.json::<Value>().await.unwrap())
    };
    assert_eq!(status, 409, "{refusal}");
    let message = refusal["error"].as_str().unwrap();
    me.devportal(&["app", "publish", "--yes"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(message));
    let failed = me
        .devportal(&["app", "publish", "--yes", "--json"])
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1));
    let error: Value = serde_json::from_slice(&failed.stderr).unwrap();
    assert_eq!(
        (error["status"].as_u64(), error["error"].as_str()),
        (Some(409), Some(message))
    );

    // A bad configuration file is refused with the browser's message, before anything is sent.
    std::fs::write(me.work.path().join("broken.json"), "{name: 1}").unwrap();
    me.devportal(&["app", "import", "broken.json", "--yes"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "Invalid JSON format. Please check the file content.",
        ));

    // A revoked token: the server's message and exit 3.
    revoke_token(&server, &token).await;
    let (status, answer) = call(
        &server,
        reqwest::Method::GET,
        "/api/dev/auth/me",
        &token.value,
        None,
    )
    .await;
    assert_eq!(status, 401);
    let message = answer["error"].as_str().unwrap();
    assert!(message.contains("revoked"), "{message}");
    me.devportal(&["app", "list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(message).and(predicate::str::contains("devportal login")));

    // logout forgets the stored token.
    me.ok(&["logout"]);
    assert!(!stored.exists());
    me.devportal(&["whoami"]).assert().code(3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_developer_works_from_the_command_line_on_both_databases() {
    for backend in BACKENDS {
        a_developer_works_from_the_command_line(backend).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_environment_wins_over_the_stored_login_for_ci() {
    for backend in BACKENDS {
        let server = spawn(backend).await;
        let ada = issue_token(&server, "ada@example.com").await;
        let bob = issue_token(&server, "bob@example.com").await;
        let me = Machine::new();
        me.devportal(&["login", "--url", &server.address])
            .write_stdin(ada.value.clone())
            .assert()
            .success();
        // DEVPORTAL_TOKEN (and DEVPORTAL_URL) win: the same machine acts as Bob.
        let whoami = me
            .devportal(&["whoami", "--json"])
            .env("DEVPORTAL_TOKEN", &bob.value)
            .env("DEVPORTAL_URL", &server.address)
            .output()
            .unwrap();
        assert!(whoami.status.success(), "{backend:?}");
        let user: Value = serde_json::from_slice(&whoami.stdout).unwrap();
        assert_eq!(user["email"], "bob@example.com", "{backend:?}");
        // Without a stored login, the environment alone is enough (a CI job).
        let ci = Machine::new();
        ci.devportal(&["app", "list", "--json"])
            .env("DEVPORTAL_TOKEN", &bob.value)
            .env("DEVPORTAL_URL", &server.address)
            .assert()
            .success()
            .stdout(predicate::str::contains("[]"));
        // A token the server does not know: its message, exit 3.
        ci.devportal(&["whoami"])
            .env("DEVPORTAL_TOKEN", "dpt_not-a-real-token")
            .env("DEVPORTAL_URL", &server.address)
            .assert()
            .code(3);
    }
}

/// A token crosses the network in clear only to this machine: over `http://` the client talks to a loopback
/// host (127.0.0.0/8, ::1, localhost) and refuses any other before sending anything, unless
/// `--allow-insecure` (or `DEVPORTAL_ALLOW_INSECURE=1`) says so. The network on the way to the distant host
/// is the client's HTTP proxy here, which keeps what it sees.
#[tokio::test(flavor = "multi_thread")]
async fn a_token_goes_over_plain_http_only_to_this_machine_unless_allowed() {
    let server = spawn(Backend::Sqlite).await;
    let ada = issue_token(&server, "ada@example.com").await;
    let network = Catcher::new();
    let far = "http://portal.example.com";
    let me = Machine::new();

    // Refused before anything is sent: usage (2), saying what to do.
    for args in [&["whoami"][..], &["app", "list"], &["org", "list", "--json"]] {
        through(me.devportal(args), &network)
            .env("DEVPORTAL_TOKEN", &ada.value)
            .env("DEVPORTAL_URL", far)
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("https://portal.example.com")
                    .and(predicate::str::contains("--allow-insecure")),
            );
    }
    through(me.devportal(&["login", "--url", far]), &network)
        .write_stdin(ada.value.clone())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--allow-insecure"));
    // A variable other than 1 allows nothing.
    through(me.devportal(&["whoami"]), &network)
        .env("DEVPORTAL_TOKEN", &ada.value)
        .env("DEVPORTAL_URL", far)
        .env("DEVPORTAL_ALLOW_INSECURE", "no")
        .assert()
        .code(2);
    assert_eq!(network.requests(), 0, "{:?}", network.received.lock().unwrap());
    assert!(!me.config.path().join("credentials.json").exists());

    // Allowed by the flag or the variable: the token goes, in clear (this is what the refusal prevents).
    through(me.devportal(&["whoami", "--allow-insecure"]), &network)
        .env("DEVPORTAL_TOKEN", &ada.value)
        .env("DEVPORTAL_URL", far)
        .assert()
        .success()
        .stdout(predicate::str::contains("caught@example.com"));
    through(me.devportal(&["whoami"]), &network)
        .env("DEVPORTAL_TOKEN", &ada.value)
        .env("DEVPORTAL_URL", far)
        .env("DEVPORTAL_ALLOW_INSECURE", "1")
        .assert()
        .success();
    assert_eq!(
        network.authorizations(),
        vec![format!("authorization: Bearer {}", ada.value); 2]
    );

    // This machine needs no flag: 127.0.0.1 (the default's address) and localhost; and it is reached
    // directly, never through the proxy.
    let port = server.address.rsplit(':').next().unwrap();
    for url in [server.address.clone(), format!("http://localhost:{port}")] {
        let whoami = through(me.devportal(&["whoami", "--json"]), &network)
            .env("DEVPORTAL_TOKEN", &ada.value)
            .env("DEVPORTAL_URL", &url)
            .output()
            .unwrap();
        assert!(
            whoami.status.success(),
            "{url}: {}",
            String::from_utf8_lossy(&whoami.stderr)
        );
        let user: Value = serde_json::from_slice(&whoami.stdout).unwrap();
        assert_eq!(user["email"], "ada@example.com", "{url}");
    }
    assert_eq!(
        network.requests(),
        2,
        "this machine was reached through the proxy"
    );
}

/// The stored token goes only to the portal it was stored for (the same address however it is written);
/// another portal needs a token given for it (`DEVPORTAL_TOKEN`), and the refusal says so.
#[tokio::test(flavor = "multi_thread")]
async fn the_stored_token_goes_only_to_the_portal_it_was_stored_for() {
    let server = spawn(Backend::Sqlite).await;
    let ada = issue_token(&server, "ada@example.com").await;
    let other = Catcher::new();
    let me = Machine::new();
    me.devportal(&["login", "--url", &server.address])
        .write_stdin(ada.value.clone())
        .assert()
        .success();

    for args in [
        &["whoami"][..],
        &["app", "list"],
        &["org", "switch", "x"],
        &["org", "list"],
    ] {
        me.devportal(args)
            .env("DEVPORTAL_URL", &other.address)
            .assert()
            .code(3)
            .stderr(
                predicate::str::contains(format!("The saved token belongs to {}", server.address))
                    .and(predicate::str::contains("DEVPORTAL_TOKEN"))
                    .and(predicate::str::contains(format!(
                        "devportal login --url {}",
                        other.address
                    ))),
            );
    }
    assert_eq!(other.requests(), 0, "{:?}", other.received.lock().unwrap());

    // The same portal written otherwise is the same: the stored token goes.
    let upper = server.address.replace("http://", "HTTP://");
    for url in [format!("{}/", server.address), upper] {
        let whoami = me
            .devportal(&["whoami", "--json"])
            .env("DEVPORTAL_URL", &url)
            .output()
            .unwrap();
        assert!(
            whoami.status.success(),
            "{url}: {}",
            String::from_utf8_lossy(&whoami.stderr)
        );
        let user: Value = serde_json::from_slice(&whoami.stdout).unwrap();
        assert_eq!(user["email"], "ada@example.com", "{url}");
    }

    // A token given for the other portal goes there, and only it.
    me.devportal(&["whoami"])
        .env("DEVPORTAL_URL", &other.address)
        .env("DEVPORTAL_TOKEN", "dpt_given-for-the-other-portal")
        .assert()
        .success()
        .stdout(predicate::str::contains("caught@example.com"));
    assert_eq!(
        other.authorizations(),
        vec!["authorization: Bearer dpt_given-for-the-other-portal".to_owned()]
    );
}

/// Every field the client reads from an answer typed only in the HTTP adapter is in the served OpenAPI
/// document's schema of that answer.
#[tokio::test(flavor = "multi_thread")]
async fn the_fields_the_client_reads_are_in_the_openapi_document() {
    let server = spawn(Backend::Sqlite).await;
    let document: Value = server
        .client
        .get(format!("{}/api/openapi.json", server.address))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let schemas = &document["components"]["schemas"];
    for (schema, field) in devportal_cli::wire::READ {
        assert!(
            schemas[schema]["properties"][field].is_object(),
            "{schema}.{field} is not in the OpenAPI document"
        );
    }
}

#[test]
fn help_shows_examples_and_exit_codes_and_usage_errors_exit_2() {
    let me = Machine::new();
    me.devportal(&["--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Exit codes:").and(predicate::str::contains("DEVPORTAL_TOKEN")));
    me.devportal(&["app", "import", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"));
    me.devportal(&["app", "frobnicate"]).assert().code(2);
    // No package and no project file: a usage error.
    me.devportal(&["app", "publish", "--yes"])
        .env("DEVPORTAL_TOKEN", "x")
        .env("DEVPORTAL_URL", "http://127.0.0.1:9")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("devportal.json"));
}

/// A server on this machine that answers every request with `status` and an HTML `body`: a web site that
/// is not a portal.
fn not_a_portal(status: &'static str, body: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0_u8; 1];
            while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                head.push(byte[0]);
            }
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    address
}

/// A wrong `DEVPORTAL_URL` is named for what it is (issue 48 item 5): an address without http:// or https://
/// is told to add one (not "relative URL without a base"), and a web site that is not a portal, whether it
/// answers 404 or a page, is said not to be one (not "404 Not Found" or "expected value at line 1").
#[test]
fn a_wrong_address_is_named_for_what_it_is() {
    let me = Machine::new();
    for address in ["portal.example.com", "localhost:8080"] {
        me.devportal(&["whoami"])
            .env("DEVPORTAL_TOKEN", "dpt_whatever")
            .env("DEVPORTAL_URL", address)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("add http:// or https://"))
            .stderr(predicate::str::contains("relative URL").not());
    }
    for (status, body) in [
        ("404 Not Found", "<html><body>Not here</body></html>"),
        ("200 OK", "<!doctype html><html><body>A blog</body></html>"),
        ("401 Unauthorized", "<html><body>Log in</body></html>"),
    ] {
        let site = not_a_portal(status, body);
        me.devportal(&["whoami"])
            .env("DEVPORTAL_TOKEN", "dpt_whatever")
            .env("DEVPORTAL_URL", &site)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "{site} is not a developer portal ({site}/api/public-config did not answer as one)"
            )))
            .stderr(predicate::str::contains("expected value").not());
    }
}
