//! The running skeleton: health, public configuration, the web UI and its fallback, JSON 404s.

use crate::helpers::{spawn_app, spawn_app_on, spawn_app_with};
use adapter_db::Backend;
use diesel::RunQueryDsl;
use reqwest::StatusCode;

#[tokio::test]
async fn healthz_answers_ok() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");
}

#[tokio::test]
async fn public_config_names_the_documentation_and_the_identity_service() {
    let app = spawn_app().await;
    let body = app.get_json("/api/public-config").await;
    assert_eq!(body["docsUrl"], "https://docs.mentra.glass");
    assert_eq!(body["providers"], serde_json::json!([]));
    assert!(body["identity"]["url"].as_str().unwrap().starts_with("http://"));
}

#[tokio::test]
async fn the_landing_page_and_unknown_routes_serve_the_web_ui() {
    let app = spawn_app().await;
    for path in ["/", "/dashboard", "/apps/com.example.app/edit", "/no/such/page"] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-cache", "{path}");
        assert!(
            response.text().await.unwrap().contains("Developer Portal"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_page_rendered_at_build_time_is_served_for_its_path() {
    let app = spawn_app().await;
    let prerendered = app.frontend.path().join("prerendered");
    std::fs::create_dir(&prerendered).unwrap();
    std::fs::write(prerendered.join("index.html"), "the landing page, rendered").unwrap();
    std::fs::write(prerendered.join("signin.html"), "the sign-in page, rendered").unwrap();
    for (path, expected) in [
        ("/", "the landing page, rendered"),
        ("/signin", "the sign-in page, rendered"),
        ("/signin?token=abc", "the sign-in page, rendered"),
    ] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-cache", "{path}");
        assert_eq!(response.text().await.unwrap(), expected, "{path}");
    }
    // Any other page is still the bare web UI.
    let other = app.client.get(app.url("/dashboard")).send().await.unwrap();
    assert!(!other.text().await.unwrap().contains("rendered"));
}

#[tokio::test]
async fn hashed_assets_are_cached_for_a_year() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/assets/app-1234.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
}

#[tokio::test]
async fn an_unknown_api_path_is_a_json_404_not_the_web_ui() {
    let app = spawn_app().await;
    let response = app.send(app.client.get(app.url("/api/nope"))).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["code"], "NOT_FOUND");
}

#[tokio::test]
async fn path_traversal_does_not_leave_the_web_ui_folder() {
    let app = spawn_app().await;
    std::fs::write(app.frontend.path().join(".secret"), "hidden").unwrap();
    let response = app.client.get(app.url("/.secret")).send().await.unwrap();
    assert!(!response.text().await.unwrap().contains("hidden"));
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/")).send().await.unwrap();
    let headers = response.headers();
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["x-frame-options"], "DENY");
}

#[tokio::test]
async fn an_https_portal_asks_browsers_for_https_on_every_answer_and_a_plain_http_one_does_not() {
    let secure = spawn_app_with(
        Backend::Sqlite,
        &[("PORTAL_PUBLIC_URL", "https://portal.example.com")],
    )
    .await;
    let plain = spawn_app().await;
    for path in [
        "/",
        "/healthz",
        "/api/nope",
        "/api/public-config",
        "/api/orgs",
        "/auth/v1/settings",
    ] {
        let response = secure.client.get(secure.url(path)).send().await.unwrap();
        assert_eq!(
            response
                .headers()
                .get("strict-transport-security")
                .map(|v| v.to_str().unwrap().to_owned()),
            Some("max-age=31536000; includeSubDomains".to_owned()),
            "{path} answered {}",
            response.status()
        );
        let response = plain.client.get(plain.url(path)).send().await.unwrap();
        assert!(
            response.headers().get("strict-transport-security").is_none(),
            "{path}"
        );
    }
}

#[tokio::test]
async fn the_server_starts_and_serves_on_postgresql_too() {
    let app = spawn_app_on(Backend::Postgres).await;
    // The server migrated the empty PostgreSQL schema it was given.
    let database = app.database.as_ref().unwrap();
    assert_eq!(database.backend(), Backend::Postgres);
    let mut conn = database.connection().unwrap();
    let applied: i64 = diesel::dsl::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
        "(SELECT count(*) FROM __diesel_schema_migrations)",
    ))
    .get_result(&mut *conn)
    .unwrap();
    let migrations = std::fs::read_dir(format!(
        "{}/../../migrations/postgres",
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for the tests it runs")
    ))
    .unwrap()
    .count();
    assert_eq!(applied, i64::try_from(migrations).unwrap());
    let response = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = app.get_json("/api/public-config").await;
    assert_eq!(body["docsUrl"], "https://docs.mentra.glass");
}
