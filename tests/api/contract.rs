//! The served OpenAPI document tells the truth: every answer the shared request helpers receive
//! ([`crate::helpers::TestApp::call`], `get_json`, `new_user`) is checked against the document's description
//! of its route (path template), method and status, and a JSON body against the schema documented for them
//! (`$ref`s resolved to the document's components). An answer of a route or status the document does not
//! list fails the test, as does a body the schema refuses.

use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Paths outside `/api` that the document describes; every other path outside `/api` (the identity API at
/// `/auth/v1`, whose contract is Supabase Auth's, and the web UI) is not checked.
const DOCUMENTED_OUTSIDE_API: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// The document as the server serves it (the same for every server of this binary), fetched once.
static DOCUMENT: tokio::sync::OnceCell<Value> = tokio::sync::OnceCell::const_new();

/// The compiled schema of each (method, template, status), made once.
type Validators = Mutex<HashMap<(String, String, String), Arc<jsonschema::Validator>>>;
static VALIDATORS: OnceLock<Validators> = OnceLock::new();

/// The served document, fetched from the server at `address` the first time.
pub async fn document(address: &str) -> &'static Value {
    DOCUMENT
        .get_or_init(|| async {
            reqwest::get(format!("{address}/api/openapi.json"))
                .await
                .expect("fetch the OpenAPI document")
                .json()
                .await
                .expect("the OpenAPI document is JSON")
        })
        .await
}

/// Whether the document is meant to describe `path` (a path without its query).
fn described(path: &str) -> bool {
    (path.starts_with("/api/") || DOCUMENTED_OUTSIDE_API.contains(&path))
        && path != "/api/openapi.json"
        && !path.starts_with("/api/docs")
}

/// The document's path template that `path` matches (`/api/dev/apps/{packageName}` for
/// `/api/dev/apps/com.example`); a template with fewer parameters wins over one with more.
fn template<'a>(doc: &'a Value, path: &str) -> Option<&'a str> {
    let segments: Vec<&str> = path.split('/').collect();
    doc["paths"]
        .as_object()?
        .keys()
        .filter(|template| {
            let parts: Vec<&str> = template.split('/').collect();
            parts.len() == segments.len()
                && parts
                    .iter()
                    .zip(&segments)
                    .all(|(part, segment)| part == segment || (part.starts_with('{') && !segment.is_empty()))
        })
        .min_by_key(|template| template.matches('{').count())
        .map(String::as_str)
}

/// Checks one answer against `doc`: `Ok` when its route, method and status are documented and its JSON body
/// (if any) fits the documented schema; `Err` says what does not fit.
///
/// An answer for a route or method the document does not have is accepted only as a refusal of that route
/// (404 or 405), as an unknown route answers.
pub fn check(
    doc: &Value,
    method: &str,
    path: &str,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<(), String> {
    if !described(path) {
        return Ok(());
    }
    let method = method.to_ascii_lowercase();
    let operation =
        template(doc, path).and_then(|template| doc["paths"][template].get(&method).map(|op| (template, op)));
    let Some((template, operation)) = operation else {
        return if status == 404 || status == 405 {
            Ok(())
        } else {
            Err(format!(
                "{method} {path} answered {status}, but the document has no such operation"
            ))
        };
    };
    let status_key = status.to_string();
    let response = operation["responses"]
        .get(&status_key)
        .or_else(|| operation["responses"].get("default"))
        .ok_or_else(|| {
            format!("{method} {template} answered {status}, which its OpenAPI description does not list")
        })?;
    let is_json = content_type.is_some_and(|ct| ct.starts_with("application/json"));
    if !is_json {
        return Ok(());
    }
    let Some(schema) = response["content"]["application/json"].get("schema") else {
        return if body.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{method} {template} answered {status} with a JSON body, but the document describes none"
            ))
        };
    };
    let value: Value = serde_json::from_slice(body)
        .map_err(|error| format!("{method} {path} answered {status} with invalid JSON: {error}"))?;
    let key = (method.clone(), template.to_owned(), status_key);
    let validator = {
        let mut cache = VALIDATORS
            .get_or_init(Mutex::default)
            .lock()
            .expect("validator cache");
        if let Some(validator) = cache.get(&key) {
            Arc::clone(validator)
        } else {
            let validator = Arc::new(compile(doc, schema)?);
            cache.insert(key, Arc::clone(&validator));
            validator
        }
    };
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{method} {path} answered {status} with a body its OpenAPI schema refuses:\n  {}\nbody: {value}",
            errors.join("\n  ")
        ))
    }
}

/// A validator of `schema` whose `#/components/...` references resolve to the document's components.
fn compile(doc: &Value, schema: &Value) -> Result<jsonschema::Validator, String> {
    let mut root = serde_json::json!({ "allOf": [schema] });
    root["components"] = doc["components"].clone();
    jsonschema::draft202012::new(&root)
        .map_err(|error| format!("the document's schema does not compile: {error}"))
}

/// Sends `request`, checks the answer against the served document and answers it unchanged (its body read
/// and put back).
pub async fn send_checked(address: &str, request: reqwest::RequestBuilder) -> reqwest::Response {
    let (client, request) = request.build_split();
    let request = request.expect("request");
    let method = request.method().as_str().to_owned();
    let path = request.url().path().to_owned();
    let response = client.execute(request).await.expect("request");
    let status = response.status();
    let version = response.version();
    let headers = response.headers().clone();
    let body = response.bytes().await.expect("answer body");
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok());
    let doc = document(address).await;
    if let Err(problem) = check(doc, &method, &path, status.as_u16(), content_type, &body) {
        panic!("the answer does not match the OpenAPI document: {problem}");
    }
    let mut rebuilt = http::Response::builder().status(status).version(version);
    if let Some(map) = rebuilt.headers_mut() {
        *map = headers;
    }
    reqwest::Response::from(rebuilt.body(body).expect("answer"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helpers::spawn_app;

    fn json(value: &Value) -> Vec<u8> {
        serde_json::to_vec(value).unwrap()
    }

    #[tokio::test]
    async fn the_validator_refuses_an_answer_the_document_does_not_describe() {
        let app = spawn_app().await;
        let doc = document(&app.address).await;
        let json_type = Some("application/json");
        // What the server answers fits.
        assert_eq!(
            check(
                doc,
                "GET",
                "/healthz",
                200,
                json_type,
                &json(&serde_json::json!({"status": "ok"}))
            ),
            Ok(())
        );
        // A field of the wrong type, a missing required field, an undocumented status, an undocumented
        // operation and a body where none is documented are each refused.
        let wrong_type = check(
            doc,
            "GET",
            "/healthz",
            200,
            json_type,
            &json(&serde_json::json!({"status": 1})),
        );
        assert!(wrong_type.is_err(), "{wrong_type:?}");
        let app_without_name = serde_json::json!({"packageName": "com.example.a"});
        let missing = check(
            doc,
            "GET",
            "/api/dev/apps/com.example.a",
            200,
            json_type,
            &json(&app_without_name),
        );
        assert!(missing.as_ref().is_err_and(|e| e.contains("name")), "{missing:?}");
        let bad_setting = serde_json::json!({"permissions": [{"type": "TELEPATHY"}]});
        let enum_refused = check(
            doc,
            "GET",
            "/api/permissions/com.example.a",
            200,
            json_type,
            &json(&bad_setting),
        );
        assert!(enum_refused.is_err(), "{enum_refused:?}");
        let status = check(
            doc,
            "GET",
            "/healthz",
            418,
            json_type,
            &json(&serde_json::json!({})),
        );
        assert!(status.is_err_and(|e| e.contains("418")));
        let operation = check(doc, "PATCH", "/api/public-config", 200, json_type, b"{}");
        assert!(operation.is_err(), "{operation:?}");
        let body = check(
            doc,
            "DELETE",
            "/api/dev/apps/com.example.a",
            204,
            json_type,
            b"{\"x\":1}",
        );
        assert!(body.is_err(), "{body:?}");
        // Outside what the document describes nothing is checked; an unknown route may answer 404.
        assert_eq!(
            check(doc, "POST", "/auth/v1/signup", 418, json_type, b"{}"),
            Ok(())
        );
        assert_eq!(
            check(doc, "GET", "/api/no-such-route", 404, json_type, b"{}"),
            Ok(())
        );
    }
}
