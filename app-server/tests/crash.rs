//! A crash loses nothing that was acknowledged: writers create organizations through the API while the
//! `app-server` process is killed with SIGKILL; a new process on the same database serves every
//! organization whose creation was answered 201, with the name it was given. On SQLite and PostgreSQL, and
//! on PostgreSQL through PgBouncer in transaction mode (README "Behind a connection pooler"), where the
//! killed process's transactions in flight are ended by the pooler, not by PostgreSQL seeing it go.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapter_db::Backend;
use adapter_db::testing::{PgBouncer, PostgresDatabase, fresh};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod support;

const WRITERS: usize = 8;

/// `app-server serve` on `database_url` with `extra` settings, on a port of its own; tokens name the same
/// public URL whichever process issued them.
fn start(database_url: &str, extra: &[(&str, &str)], data: &std::path::Path) -> (Child, u16, String) {
    let port = support::free_port();
    let mut settings = vec![("PORTAL_PUBLIC_URL", "http://portal.test")];
    settings.extend_from_slice(extra);
    let child = support::serve(database_url, data, port, &settings);
    (child, port, format!("http://127.0.0.1:{port}"))
}

/// Signs a user up and answers the core token of its session.
async fn core_token(client: &reqwest::Client, base: &str) -> String {
    let session: Value = client
        .post(format!("{base}/auth/v1/signup"))
        .header("apikey", "built-in")
        .json(&json!({"email": "writer@example.com", "password": "a sufficiently long passphrase 42"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let access = session["access_token"].as_str().expect("a session: no SMTP");
    let exchanged: Value = client
        .post(format!("{base}/api/auth/exchange-token"))
        .json(&json!({"supabaseToken": access}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    exchanged["coreToken"].as_str().unwrap().to_owned()
}

/// The organizations the user sees: id → name.
async fn organizations(client: &reqwest::Client, base: &str, token: &str) -> BTreeMap<String, String> {
    let listed: Value = client
        .get(format!("{base}/api/orgs"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    listed["data"]
        .as_array()
        .unwrap_or_else(|| panic!("organizations: {listed}"))
        .iter()
        .map(|org| {
            (
                org["id"].as_str().unwrap().to_owned(),
                org["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The crash on the database at `database_url`, the servers started with `extra`; `what` names the setup.
async fn crash_under_writers(what: &str, database_url: &str, extra: &[(&str, &str)]) {
    let data = tempfile::tempdir().unwrap();
    let (mut server, port, base) = start(database_url, extra, data.path());
    support::wait_until_up(&mut server, port).await;
    let client = reqwest::Client::new();
    let token = core_token(&client, &base).await;

    // Writers create organizations until the server is gone; each keeps what was acknowledged.
    let acknowledged: Arc<Mutex<BTreeMap<String, String>>> = Arc::default();
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let (client, base, token) = (client.clone(), base.clone(), token.clone());
            let acknowledged = Arc::clone(&acknowledged);
            tokio::spawn(async move {
                for n in 0.. {
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
                    if answer.status() != reqwest::StatusCode::CREATED {
                        continue;
                    }
                    let Ok(body) = answer.json::<Value>().await else {
                        return;
                    };
                    let id = body["data"]["id"].as_str().unwrap().to_owned();
                    acknowledged.lock().unwrap().insert(id, name);
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.kill().unwrap(); // SIGKILL: no shutdown, no flush.
    server.wait().unwrap();
    for writer in writers {
        writer.await.unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() >= WRITERS,
        "{what}: the writers got through before the crash ({} writes)",
        acknowledged.len()
    );

    let (mut restarted, port, base) = start(database_url, extra, data.path());
    support::wait_until_up(&mut restarted, port).await;
    let stored = organizations(&client, &base, &token).await;
    restarted.kill().unwrap();
    restarted.wait().unwrap();
    for (id, name) in &acknowledged {
        assert_eq!(
            stored.get(id),
            Some(name),
            "{what}: an acknowledged organization is lost or changed after the crash"
        );
    }
    eprintln!(
        "{what}: {} acknowledged writes, all read back after SIGKILL",
        acknowledged.len()
    );
}

#[actix_web::test]
async fn acknowledged_writes_survive_a_kill_on_sqlite() {
    let test_db = fresh(Backend::Sqlite);
    crash_under_writers("SQLite", test_db.url(), &[]).await;
}

#[actix_web::test]
async fn acknowledged_writes_survive_a_kill_on_postgres() {
    let test_db = fresh(Backend::Postgres);
    crash_under_writers("PostgreSQL", test_db.url(), &[]).await;
}

#[actix_web::test]
async fn acknowledged_writes_survive_a_kill_behind_pgbouncer_in_transaction_mode() {
    let database = PostgresDatabase::create();
    let bouncer = PgBouncer::start(&database);
    let direct = database.url();
    let settings = [
        ("PORTAL_DATABASE_PREPARED_STATEMENTS", "false"),
        ("PORTAL_DATABASE_LISTEN_URL", direct.as_str()),
    ];
    crash_under_writers("PostgreSQL through PgBouncer", &bouncer.url(), &settings).await;
}
