//! Two instances behind Debian's PgBouncer in transaction mode (README "Behind a connection pooler"), started
//! together so that their migrations race through it: the API walk (sign-up and sign-in, an organization,
//! an app registered, edited, its key rotated, submitted and approved), each step on the other instance
//! from the one before, and a sign-out on one instance refused at once on the other. PgBouncer keeps fewer
//! server connections than the instances have clients, so that every transaction may land on another one.
//!
//! With `PORTAL_DATABASE_LISTEN_URL` reaching PostgreSQL directly, the session cache is trusted and used;
//! with the listening connection through the pooler too, a notice from another connection does not reach it,
//! so the cache is never trusted and every request reads the database: the sign-out is refused at once
//! either way. (Before the listening connection proved that it hears other connections' notices, its own
//! round notice came back through PgBouncer, which hands a client the server connection it used last, and
//! the other instance kept serving the signed-out session.)

use crate::helpers::{TestApp, spawn_app_at};
use crate::instances::{registration, signed_up};
use crate::org_fixtures::{PUBLIC_URL, User, call, create_org, in_org, sign_in, sign_up};
use adapter_db::testing::{PgBouncer, PostgresDatabase};
use adapter_db::{Db, PostgresOptions};
use app_server::admin_cli::{self, AdminCommand};
use domain::apps::ports::AppRepository as _;
use reqwest::Method;
use serde_json::{Value, json};

const PKG: &str = "com.acme.pooled";

/// The instances and what they run on (dropped in this order: the servers' pools first).
struct Pooled {
    first: TestApp,
    second: TestApp,
    bouncer: PgBouncer,
    _database: PostgresDatabase,
}

/// A database of its own, PgBouncer in front of it, and two instances through it, started together.
async fn behind_pgbouncer(listen_directly: bool) -> Pooled {
    let database = PostgresDatabase::create();
    let bouncer = PgBouncer::start(&database);
    let (pooled, direct) = (bouncer.url(), database.url());
    let mut extra = vec![
        ("PORTAL_PUBLIC_URL", PUBLIC_URL),
        ("PORTAL_DATABASE_PREPARED_STATEMENTS", "false"),
    ];
    if listen_directly {
        extra.push(("PORTAL_DATABASE_LISTEN_URL", direct.as_str()));
    }
    let (first, second) = tokio::join!(spawn_app_at(&pooled, &extra), spawn_app_at(&pooled, &extra));
    Pooled {
        first,
        second,
        bouncer,
        _database: database,
    }
}

/// A handle on the database through PgBouncer, as a command (`app-server admin …`) opens it.
fn command_db(pooled: &Pooled) -> Db {
    let options = PostgresOptions {
        prepared_statements: false,
        ..PostgresOptions::default()
    };
    Db::connect_for_command_with(&pooled.bouncer.url(), &options).unwrap()
}

/// Sessions answered from memory by an instance so far.
fn cache_hits(app: &TestApp) -> u64 {
    app.server_db
        .as_ref()
        .expect("the server's own database")
        .pool_stats()
        .cache_hits
}

/// `GET /api/dev/apps/{PKG}` on `app`: status and body.
async fn read_app(app: &TestApp, user: &User, org: &str) -> (u16, Value) {
    in_org(app, Method::GET, &format!("/api/dev/apps/{PKG}"), user, org, None).await
}

/// The walk, each step on the other instance; then Ada's first session is signed out on `second` while
/// `first` serves her requests. Answers how many sessions `first` answered from memory meanwhile.
async fn walk_and_sign_out(pooled: &Pooled) -> u64 {
    let (first, second) = (&pooled.first, &pooled.second);
    let log = || pooled.bouncer.log();

    // Sign-up on one instance, sign-in on the other; each session works on both.
    let (access, ada) = signed_up(first, "ada@example.com").await;
    let ada_again = sign_in(second, "ada@example.com").await;
    for (app, user) in [(first, &ada_again), (second, &ada)] {
        let (status, body) = call(
            app,
            Method::GET,
            "/api/dev/auth/me",
            Some(&user.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}\n{}", log());
    }

    // An organization made on one instance, its profile completed on the other.
    let org = create_org(second, &ada, "Acme").await;
    let (status, body) = call(
        first,
        Method::PUT,
        &format!("/api/orgs/{org}"),
        Some(&ada.token),
        None,
        Some(&json!({"name": "Acme", "profile": {"contactEmail": "team@acme.example.com"}})),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // Registered on one, read and edited on the other, the edit read back on the first.
    let (status, registered) = in_org(
        first,
        Method::POST,
        "/api/dev/apps/register",
        &ada,
        &org,
        Some(registration(PKG)),
    )
    .await;
    assert_eq!(status, 201, "{registered}\n{}", log());
    let first_key = registered["apiKey"].as_str().unwrap().to_owned();
    let (status, app) = read_app(second, &ada, &org).await;
    assert_eq!((status, app["name"].as_str()), (200, Some("Notes")), "{app}");
    let (status, body) = in_org(
        second,
        Method::PUT,
        &format!("/api/dev/apps/{PKG}"),
        &ada,
        &org,
        Some(json!({"description": "Takes notes through the pooler"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, app) = read_app(first, &ada, &org).await;
    assert_eq!(app["description"], "Takes notes through the pooler", "{app}");

    // The key rotated on one instance: the old one is dead, the new one lives.
    let (status, body) = in_org(
        first,
        Method::POST,
        &format!("/api/dev/apps/{PKG}/api-key"),
        &ada,
        &org,
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let second_key = body["apiKey"].as_str().unwrap().to_owned();
    assert_ne!(second_key, first_key);
    let apps = adapter_db::repos::DieselAppRepository::new(command_db(pooled));
    let digest = domain::common::secrets::digest_secret;
    assert!(
        apps.find_by_key_hash(&digest(&first_key))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        apps.find_by_key_hash(&digest(&second_key))
            .await
            .unwrap()
            .is_some()
    );

    // Submitted on one instance, approved by a reviewer on the other, published as seen by the first.
    let (status, body) = in_org(
        second,
        Method::POST,
        &format!("/api/dev/apps/{PKG}/publish"),
        &ada,
        &org,
        None,
    )
    .await;
    assert_eq!(
        (status, body["appStoreStatus"].as_str()),
        (200, Some("SUBMITTED")),
        "{body}"
    );
    let reviewer = sign_up(first, "grace@example.com").await;
    admin_cli::run(
        &command_db(pooled),
        AdminCommand::Grant {
            email: "grace@example.com".into(),
            role: "reviewer".into(),
        },
    )
    .await
    .unwrap();
    let admin_path = format!("/api/admin/apps/{PKG}");
    let (status, queued) = call(first, Method::GET, &admin_path, Some(&reviewer.token), None, None).await;
    assert_eq!(status, 200, "{queued}");
    let (status, body) = call(
        second,
        Method::POST,
        &format!("{admin_path}/approve"),
        Some(&reviewer.token),
        None,
        Some(&json!({"notes": "Fine", "expectedUpdatedAt": queued["updatedAt"]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, app) = read_app(first, &ada, &org).await;
    assert_eq!(app["appStoreStatus"], "PUBLISHED", "{app}");
    let (status, history) = in_org(
        first,
        Method::GET,
        &format!("/api/dev/apps/{PKG}/history"),
        &ada,
        &org,
        None,
    )
    .await;
    assert_eq!(status, 200, "{history}");
    let kinds: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|event| event["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"submitted") && kinds.contains(&"approved"),
        "{history}"
    );

    // Ada's requests on the first instance, then her first session signed out on the second: refused at
    // once on both; her other session is untouched.
    let hits_before = cache_hits(first);
    let org_path = format!("/api/orgs/{org}");
    for _ in 0..5 {
        assert_eq!(read_app(first, &ada, &org).await.0, 200);
        assert_eq!(
            call(first, Method::GET, &org_path, Some(&ada.token), None, None)
                .await
                .0,
            200
        );
    }
    let hits = cache_hits(first) - hits_before;
    let logout = second
        .client
        .post(second.url("/auth/v1/logout?scope=local"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), 204);
    for app in [first, second] {
        let (status, body) = read_app(app, &ada, &org).await;
        assert_eq!(status, 401, "the signed-out session is served: {body}");
        assert_eq!(
            call(app, Method::GET, &org_path, Some(&ada.token), None, None)
                .await
                .0,
            401
        );
        assert_eq!(
            call(app, Method::GET, "/api/dev/auth/me", Some(&ada.token), None, None)
                .await
                .0,
            401
        );
        assert_eq!(
            read_app(app, &ada_again, &org).await.0,
            200,
            "the other session lives"
        );
    }
    hits
}

#[tokio::test]
async fn two_instances_behind_pgbouncer_in_transaction_mode_walk_the_api_and_see_a_sign_out_at_once() {
    let pooled = behind_pgbouncer(true).await;
    let hits = walk_and_sign_out(&pooled).await;
    assert!(
        hits >= 10,
        "the listening connection reaches PostgreSQL directly: the session cache answers ({hits} hits)"
    );
}

#[tokio::test]
async fn a_listening_connection_through_the_transaction_pooler_is_never_trusted() {
    let pooled = behind_pgbouncer(false).await;
    let hits = walk_and_sign_out(&pooled).await;
    assert_eq!(
        hits, 0,
        "a listener behind a transaction pooler misses other connections' notices: nothing may be kept"
    );
}
