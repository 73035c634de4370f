//! The OpenAPI document and its browsable page.

use crate::helpers::spawn_app;
use reqwest::StatusCode;

#[tokio::test]
async fn the_openapi_document_is_served_as_json() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/api/openapi.json")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let doc: serde_json::Value = response.json().await.unwrap();
    assert_eq!(doc["info"]["title"], "Developer Portal API");
    assert!(doc["paths"]["/api/public-config"]["get"].is_object());
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());
}

#[tokio::test]
async fn the_api_docs_page_renders_the_document_without_outside_assets() {
    let app = spawn_app().await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let redirect = client.get(app.url("/api/docs")).send().await.unwrap();
    assert_eq!(redirect.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(redirect.headers()["location"], "/api/docs/");
    let page = client.get(app.url("/api/docs/")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("swagger-ui-bundle.js"));
    assert!(
        !html.contains("https://"),
        "the docs page must load nothing from elsewhere"
    );
    let initializer = client
        .get(app.url("/api/docs/swagger-initializer.js"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(initializer.contains("/api/openapi.json"));
}
