//! The database going away and coming back: a throwaway PostgreSQL cluster of this test's own (never the
//! machine's server) is stopped while the server runs, and started again.

use crate::helpers::{spawn_app, spawn_app_at};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A PostgreSQL cluster in a temporary folder, run as a non-root user; stopped and removed when dropped.
struct Cluster {
    bin: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    owner: Option<String>,
}

impl Cluster {
    /// `None` (with the reason printed) when no PostgreSQL server binaries are installed.
    fn start() -> Option<Self> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(Result::ok)
            .map(|entry| entry.path().join("bin"))
            .filter(|bin| bin.join("pg_ctl").is_file() && bin.join("initdb").is_file())
            .max();
        let Some(bin) = bin else {
            eprintln!("skipped: no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql");
            return None;
        };
        let dir = tempfile::Builder::new()
            .prefix("portal-outage")
            .tempdir()
            .unwrap();
        // initdb refuses to run as root: the cluster belongs to `postgres` (or `nobody`).
        let is_root = Command::new("id")
            .arg("-u")
            .output()
            .unwrap()
            .stdout
            .starts_with(b"0");
        let owner = is_root.then(|| {
            let owner = ["postgres", "nobody"]
                .into_iter()
                .find(|user| {
                    Command::new("id")
                        .arg(user)
                        .output()
                        .is_ok_and(|o| o.status.success())
                })
                .expect("a non-root user to own the cluster");
            let chowned = Command::new("chown").arg(owner).arg(dir.path()).status().unwrap();
            assert!(chowned.success());
            owner.to_owned()
        });
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = Self {
            bin,
            dir,
            port,
            owner,
        };
        let data = cluster.data();
        cluster.run("initdb", &["-D", &data, "-A", "trust", "-U", "postgres"]);
        cluster.pg_ctl_start();
        Some(cluster)
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn run(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let mut command = match &self.owner {
            Some(owner) => {
                let mut command = Command::new("runuser");
                command.args(["-u", owner, "--"]).arg(&program);
                command
            }
            None => Command::new(&program),
        };
        let output = command.args(args).current_dir(self.dir.path()).output().unwrap();
        assert!(
            output.status.success(),
            "{} {args:?}: {}{}",
            program.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn pg_ctl_start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("server.log").display().to_string();
        self.run(
            "pg_ctl",
            &["-D", &self.data(), "-l", &log, "-w", "-o", &options, "start"],
        );
    }

    fn stop(&self) {
        self.run("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        let program = self.bin.join("pg_ctl");
        let mut command = match &self.owner {
            Some(owner) => {
                let mut command = Command::new("runuser");
                command.args(["-u", owner, "--"]).arg(&program);
                command
            }
            None => Command::new(&program),
        };
        let _ = command.args(["-D", &data, "-m", "immediate", "stop"]).output();
    }
}

/// One call, timed: (status, `Retry-After`, body, how long it took).
async fn timed(request: reqwest::RequestBuilder) -> (u16, Option<String>, serde_json::Value, Duration) {
    let started = Instant::now();
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("Retry-After")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = response.json().await.unwrap_or(serde_json::Value::Null);
    (status, retry_after, body, started.elapsed())
}

#[tokio::test]
async fn while_the_database_is_down_requests_answer_503_at_once_and_it_recovers_without_a_restart() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let app = spawn_app_at(&cluster.url(), &[]).await;
    let user = app.new_user("outage@example.com").await;
    let orgs = || app.client.get(app.url("/api/orgs")).bearer_auth(&user.token);
    let sign_in = || {
        app.client
            .post(app.url("/auth/v1/token?grant_type=password"))
            .header("apikey", "built-in")
            .json(&serde_json::json!({"email": "outage@example.com", "password": "a sufficiently long passphrase 42"}))
    };
    assert_eq!(timed(orgs()).await.0, 200);
    assert_eq!(app.get_json("/readyz").await["status"], "ok");

    cluster.stop();
    for round in 0..6 {
        let (status, retry_after, body, took) = timed(orgs()).await;
        assert_eq!(status, 503, "round {round}: {body}");
        assert_eq!(body["code"], "DATABASE_UNAVAILABLE", "round {round}: {body}");
        assert!(
            retry_after.is_some_and(|s| s.parse::<u64>().unwrap() >= 1),
            "round {round}"
        );
        assert!(took < Duration::from_secs(1), "round {round} took {took:?}");
    }
    let (status, retry_after, body, took) = timed(sign_in()).await;
    assert_eq!(status, 503, "{body}");
    assert!(retry_after.is_some());
    assert!(took < Duration::from_secs(1), "sign-in took {took:?}");
    let (status, retry_after, body, _) = timed(app.client.get(app.url("/readyz"))).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (503, Some("DATABASE_UNAVAILABLE"))
    );
    assert!(retry_after.is_some());
    let (status, _, body, _) = timed(app.client.get(app.url("/healthz"))).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("ok")),
        "liveness stays up"
    );

    cluster.pg_ctl_start();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, ..) = timed(app.client.get(app.url("/readyz"))).await;
        if status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not ready 20 s after the database came back"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(timed(orgs()).await.0, 200, "recovered without a restart");
    assert_eq!(timed(sign_in()).await.0, 200);
}

#[tokio::test]
async fn readyz_answers_ok_on_sqlite() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers().get("Cache-Control").unwrap(), "no-store");
}

#[tokio::test]
async fn the_openapi_document_names_the_503_of_every_product_call_and_the_readiness_check() {
    let app = spawn_app().await;
    let doc = app.get_json("/api/openapi.json").await;
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/api") {
            continue;
        }
        for (method, operation) in item.as_object().unwrap() {
            let unavailable = &operation["responses"]["503"];
            assert!(unavailable.is_object(), "{method} {path}");
            assert!(
                unavailable["headers"]["Retry-After"].is_object(),
                "{method} {path}"
            );
        }
    }
    assert!(doc["paths"]["/readyz"]["get"]["responses"]["503"].is_object());
    assert!(doc["paths"]["/healthz"]["get"]["responses"]["503"].is_null());
}
