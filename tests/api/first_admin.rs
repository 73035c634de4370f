//! The first platform admin through the one-time setup link the server writes to its log at start while no
//! account holds the `admin` role (`POST /api/admin/setup`), on both databases: single use, valid one hour,
//! replaced at every start, void once an admin exists, and only for a signed-in user.

use crate::expiry::now_ms;
use crate::helpers::{TestApp, spawn_app_on};
use crate::org_fixtures::BACKENDS;
use adapter_db::Db;
use app_server::{Application, Config, admin_cli};
use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Starts another server on the same database (a restart) and answers the setup link it logged.
async fn restart(app: &TestApp) -> Option<String> {
    let data = tempfile::tempdir().unwrap();
    let vars: HashMap<String, String> = [
        ("PORTAL_BIND", "127.0.0.1:0".to_owned()),
        ("PORTAL_FRONTEND_DIR", app.frontend.path().display().to_string()),
        ("PORTAL_DATA_DIR", data.path().display().to_string()),
        ("DATABASE_URL", app.database_url.clone()),
        ("PORTAL_UPTIME_INTERVAL_SECS", "0".to_owned()),
        // Staff act without a second factor here (as in local development); the tests of the staff
        // requirement set it back to `required`.
        ("PORTAL_STAFF_MFA", "optional".to_owned()),
        ("PORTAL_MAIL_WORKER", "false".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let mut config = Config::from_vars(&vars).unwrap();
    config.password_hashing = adapter_identity::HashCost::TestsOnly;
    let application = Application::build(&config).await.unwrap();
    application.first_admin_setup_link().map(str::to_owned)
}

fn token_of(link: &str) -> String {
    assert!(link.contains("/setup-admin?token="), "{link}");
    link.rsplit("token=").next().unwrap().to_owned()
}

async fn claim(app: &TestApp, bearer: &str, token: &str) -> (StatusCode, Value) {
    let response = app
        .call(
            Method::POST,
            "/api/admin/setup",
            bearer,
            Some(json!({"token": token})),
        )
        .await;
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn check(app: &TestApp, bearer: &str) -> Value {
    app.call(Method::GET, "/api/admin/check", bearer, None)
        .await
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_setup_link_makes_the_first_signed_in_user_admin_once() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let link = restart(&app).await.expect("a link while no admin exists");
        let token = token_of(&link);
        // Only the digest is stored.
        let db = Db::connect(&app.database_url, 1).unwrap();
        {
            use adapter_db::schema::platform_setup_tokens::dsl;
            let mut conn = db.connection().unwrap();
            let stored: Vec<String> = dsl::platform_setup_tokens
                .select(dsl::token_hash)
                .load(&mut *conn)
                .unwrap();
            assert_eq!(stored.len(), 1, "{backend:?}");
            assert_ne!(stored[0], token);
        }

        // Not signed in: refused, and the link stays usable.
        let (status, _) = claim(&app, "", &token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{backend:?}");

        let first = app.new_user("first@example.com").await;
        let (status, body) = claim(&app, &first.token, &token).await;
        assert_eq!(status, StatusCode::OK, "{backend:?} {body}");
        assert_eq!(body["role"], "admin");
        assert_eq!(check(&app, &first.token).await["role"], "admin");
        let listed = admin_cli::run(&db, admin_cli::AdminCommand::List).await.unwrap();
        assert!(listed.contains("first@example.com"), "{listed}");
        let line = listed
            .lines()
            .find(|l| l.starts_with("first@example.com"))
            .unwrap();
        assert!(line.ends_with("first-admin setup link"), "{backend:?}: {line}");
        // The platform's audit log says who became the first admin, and how.
        let log: Value = app
            .call(Method::GET, "/api/admin/audit-log", &first.token, None)
            .await
            .json()
            .await
            .unwrap();
        let entries = log["data"]["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{log}");
        assert_eq!(entries[0]["action"], "platform.first_admin");
        assert_eq!(entries[0]["actor"]["email"], "first@example.com");
        assert_eq!(
            entries[0]["changes"],
            json!([{"field": "platformRole", "old": null, "new": "admin"}])
        );

        // Single use: a second user with the same link gets nothing.
        let second = app.new_user("second@example.com").await;
        let (status, body) = claim(&app, &second.token, &token).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}");
        assert_eq!(body["code"], "SETUP_LINK_INVALID");
        assert_eq!(check(&app, &second.token).await["isAdmin"], false);

        // Once an admin exists, a start writes no link.
        assert_eq!(restart(&app).await, None, "{backend:?}");
    }
}

#[tokio::test]
async fn a_setup_link_expires_after_an_hour_and_is_replaced_at_every_start() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let older = token_of(&restart(&app).await.unwrap());
        let newer = token_of(&restart(&app).await.unwrap());
        assert_ne!(older, newer);
        let user = app.new_user("user@example.com").await;
        let (status, _) = claim(&app, &user.token, &older).await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "{backend:?}: replaced at restart"
        );

        // Valid one hour: stored with that expiry, refused once past it.
        {
            use adapter_db::schema::platform_setup_tokens::dsl;
            let db = Db::connect(&app.database_url, 1).unwrap();
            let mut conn = db.connection().unwrap();
            let expires_at: i64 = dsl::platform_setup_tokens
                .select(dsl::expires_at)
                .first(&mut *conn)
                .unwrap();
            let in_an_hour = now_ms() + 3_600_000;
            assert!(
                (in_an_hour - 60_000..=in_an_hour).contains(&expires_at),
                "{backend:?}"
            );
            diesel::update(dsl::platform_setup_tokens)
                .set(dsl::expires_at.eq(now_ms() - 1))
                .execute(&mut *conn)
                .unwrap();
        }
        let (status, body) = claim(&app, &user.token, &newer).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}: expired");
        assert_eq!(body["code"], "SETUP_LINK_INVALID");
        assert_eq!(check(&app, &user.token).await["isAdmin"], false);
    }
}

#[tokio::test]
async fn a_setup_link_does_nothing_once_an_admin_exists() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let token = token_of(&restart(&app).await.unwrap());
        let boss = app.new_user("boss@example.com").await;
        let db = Db::connect(&app.database_url, 1).unwrap();
        // The operator makes an admin another way while the link is still out there.
        admin_cli::run(
            &db,
            admin_cli::AdminCommand::Grant {
                email: "boss@example.com".into(),
                role: "admin".into(),
            },
        )
        .await
        .unwrap();
        let other = app.new_user("other@example.com").await;
        let (status, body) = claim(&app, &other.token, &token).await;
        assert_eq!(status, StatusCode::CONFLICT, "{backend:?} {body}");
        assert_eq!(body["code"], "ADMIN_EXISTS");
        assert_eq!(check(&app, &other.token).await["isAdmin"], false);
        assert_eq!(check(&app, &boss.token).await["role"], "admin");
        // The operator's grant is in the platform's audit log, made by no account.
        let log: Value = app
            .call(Method::GET, "/api/admin/audit-log", &boss.token, None)
            .await
            .json()
            .await
            .unwrap();
        let granted = &log["data"]["entries"][0];
        assert_eq!(granted["action"], "platform.role_granted", "{log}");
        assert_eq!(granted["actor"]["id"], Value::Null);
        assert_eq!(granted["actor"]["email"], domain::audit::OPERATOR_ACTOR);
        assert_eq!(granted["target"]["id"], "boss@example.com");
        // And the token is gone: a retry is simply invalid.
        let (status, _) = claim(&app, &other.token, &token).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}");
    }
}
