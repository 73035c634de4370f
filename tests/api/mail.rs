//! E-mail delivery through a real SMTP server (aiosmtpd, started by the test): the outbox worker sends
//! each e-mail once, as plain text with an HTML alternative, and an e-mail that meets an SMTP outage waits
//! in the outbox and goes out when the server is back. Needs `python3 -m aiosmtpd` (`make test` installs it).

use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::{fragment_of, local, no_redirects};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::json;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A local SMTP server writing every message it receives into a maildir.
struct SmtpCatcher {
    child: Child,
    dir: tempfile::TempDir,
}

impl SmtpCatcher {
    async fn start(port: u16) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let child = Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(dir.path().join("mail"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 -m aiosmtpd (pip install aiosmtpd)");
        wait_until("the SMTP catcher listens", || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        })
        .await;
        Self { child, dir }
    }

    fn messages(&self) -> Vec<String> {
        let new = self.dir.path().join("mail/new");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&new)
            .map(|entries| entries.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect()
    }
}

impl Drop for SmtpCatcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn app_with_smtp(port: u16, backend: Backend) -> TestApp {
    let url = format!("smtp://127.0.0.1:{port}");
    spawn_app_with(
        backend,
        &[
            ("SMTP_URL", url.as_str()),
            ("PORTAL_MAIL_WORKER", "true"),
            ("PORTAL_MAIL_FROM", "Developer Portal <portal@example.com>"),
        ],
    )
    .await
}

async fn request_magic_link(app: &TestApp, email: &str) {
    let response = app
        .client
        .post(app.url("/auth/v1/otp"))
        .header("apikey", "built-in")
        .json(&json!({"email": email, "create_user": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

/// `(attempts, sent)` of the outbox rows to `to`.
fn outbox_state(database_url: &str, to: &str) -> Vec<(i32, bool)> {
    use adapter_db::schema::email_outbox::dsl;
    let db = Db::connect(database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    dsl::email_outbox
        .filter(dsl::recipient.eq(to))
        .select((dsl::attempts, dsl::sent_at))
        .load::<(i32, Option<i64>)>(&mut *conn)
        .unwrap()
        .into_iter()
        .map(|(attempts, sent)| (attempts, sent.is_some()))
        .collect()
}

/// Makes the outbox's waiting e-mails due now, as if the back-off had passed.
fn make_due_now(database_url: &str) {
    use adapter_db::schema::email_outbox::dsl;
    let db = Db::connect(database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    diesel::update(dsl::email_outbox.filter(dsl::sent_at.is_null()))
        .set(dsl::next_attempt_at.eq(0_i64))
        .execute(&mut *conn)
        .unwrap();
}

/// Undoes quoted-printable soft line breaks and `=3D` (enough to read links).
fn quoted_printable_decoded(message: &str) -> String {
    message.replace("=\n", "").replace("=3D", "=")
}

#[tokio::test]
async fn sign_up_sends_a_confirmation_e_mail_in_text_and_html() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let port = free_port();
        let catcher = SmtpCatcher::start(port).await;
        let app = app_with_smtp(port, backend).await;
        let response = app
            .client
            .post(app.url("/auth/v1/signup"))
            .header("apikey", "built-in")
            .json(&json!({"email": "new@example.com", "password": "a sufficiently long passphrase 42"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(
            body.get("access_token").is_none(),
            "with SMTP the account waits for confirmation"
        );
        wait_until("the confirmation arrives", || catcher.messages().len() == 1).await;
        let message = &quoted_printable_decoded(&catcher.messages()[0]);
        assert!(message.contains("To: new@example.com"), "{message}");
        assert!(
            message.contains("From: \"Developer Portal\" <portal@example.com>"),
            "{message}"
        );
        assert!(message.contains("multipart/alternative"), "{message}");
        assert!(message.contains("Content-Type: text/plain"), "{message}");
        assert!(message.contains("Content-Type: text/html"), "{message}");
        assert!(message.contains("/auth/v1/verify?token="), "{message}");
        assert!(
            message.contains("<a href=\"http://127.0.0.1:8080/auth/v1/verify?token="),
            "{message}"
        );
        wait_until("the outbox records the delivery", || {
            outbox_state(&app.database_url, "new@example.com") == [(0, true)]
        })
        .await;
        // Delivered once: nothing more arrives.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(catcher.messages().len(), 1);
    }
}

#[tokio::test]
async fn an_e_mail_that_meets_an_smtp_outage_waits_and_is_delivered_when_smtp_returns() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let port = free_port(); // Nothing listens here yet: the SMTP server is down.
        let app = app_with_smtp(port, backend).await;
        // The outage neither fails nor holds up the request.
        let started = Instant::now();
        request_magic_link(&app, "patient@example.com").await;
        assert!(started.elapsed() < Duration::from_secs(5), "{backend:?}");
        wait_until("a failed attempt is recorded", || {
            outbox_state(&app.database_url, "patient@example.com") == [(1, false)]
        })
        .await;
        let catcher = SmtpCatcher::start(port).await;
        make_due_now(&app.database_url);
        wait_until("the e-mail arrives", || catcher.messages().len() == 1).await;
        let message = quoted_printable_decoded(&catcher.messages()[0]);
        assert!(message.contains("To: patient@example.com"), "{backend:?}");
        wait_until("the outbox records the delivery", || {
            outbox_state(&app.database_url, "patient@example.com") == [(1, true)]
        })
        .await;
        // The link that waited out the outage still signs in.
        let at = message
            .find("http://127.0.0.1:8080/auth/v1/verify?token=")
            .unwrap();
        let link: String = message[at..]
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, '"' | '<' | '>'))
            .collect();
        let followed = no_redirects()
            .get(local(&app, &link.replace("&amp;", "&")))
            .send()
            .await
            .unwrap();
        let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
        assert_eq!(fragment["type"], "magiclink", "{backend:?} {link}");
    }
}

#[tokio::test]
async fn without_smtp_the_worker_logs_the_e_mail_and_marks_it_delivered() {
    let app = spawn_app_with(Backend::Sqlite, &[("PORTAL_MAIL_WORKER", "true")]).await;
    // Without SMTP a magic link creates no account: the address has one first.
    app.sign_up("solo@example.com").await;
    request_magic_link(&app, "solo@example.com").await;
    wait_until("the log-only mailer takes the e-mail", || {
        outbox_state(&app.database_url, "solo@example.com") == [(0, true)]
    })
    .await;
}
