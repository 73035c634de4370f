//! Methods a path does not answer: 405 with `Allow`, never the web UI's page.

use crate::helpers::spawn_app;
use reqwest::Method;

#[tokio::test]
async fn writing_methods_on_web_ui_paths_answer_405_instead_of_the_page() {
    let app = spawn_app().await;
    for path in ["/", "/dashboard", "/assets/app-1234.js"] {
        for method in ["POST", "PUT", "DELETE", "TRACE", "PATCH"] {
            let response = app
                .client
                .request(Method::from_bytes(method.as_bytes()).unwrap(), app.url(path))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 405, "{method} {path}");
            assert_eq!(
                response.headers().get("Allow").unwrap(),
                "GET, HEAD",
                "{method} {path}"
            );
            let body: serde_json::Value = response.json().await.unwrap();
            assert_eq!(body["code"], "METHOD_NOT_ALLOWED", "{method} {path}");
        }
        let page = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(page.status(), 200, "GET {path}");
        let head = app.client.head(app.url(path)).send().await.unwrap();
        assert_eq!(head.status(), 200, "HEAD {path}");
    }
}

#[tokio::test]
async fn an_unknown_method_on_an_api_route_answers_405_with_allow() {
    let app = spawn_app().await;
    for (method, path, allow) in [
        ("PATCH", "/api/orgs", "GET, HEAD, POST"),
        ("DELETE", "/api/public-config", "GET, HEAD"),
        ("PUT", "/api/dev/apps/com.example.app/share", ""),
    ] {
        let response = app
            .client
            .request(Method::from_bytes(method.as_bytes()).unwrap(), app.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 405, "{method} {path}");
        let header = response
            .headers()
            .get("Allow")
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        if !allow.is_empty() {
            assert_eq!(header, allow, "{method} {path}");
        }
        assert!(!header.contains(method), "{method} {path}: {header}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["code"], "METHOD_NOT_ALLOWED", "{method} {path}");
    }
    let unknown = app
        .client
        .get(app.url("/api/no-such-thing"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
}
