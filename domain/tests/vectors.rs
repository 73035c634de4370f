//! Runs the JSON test vectors in `tests/vectors/` (repository root), which the frontend's tests read too.
//! Each file is `{ "description": "...", "cases": [...] }`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use domain::apps::PackageName;
use domain::apps::config::{check_config_file, import_summary, validate_config};
use domain::apps::settings::{Setting, SettingType, convert_setting};
use domain::common::{PublicUrl, ServerUrlRule, UrlError, normalise_server_url, normalise_url};
use serde_json::Value;

fn cases(file: &str) -> Vec<Value> {
    let path = PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for the tests it runs"),
    )
    .join("../tests/vectors")
    .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut vectors: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(
        vectors["description"].as_str().is_some_and(|d| !d.is_empty()),
        "{file} needs a description"
    );
    match vectors["cases"].take() {
        Value::Array(cases) => cases,
        _ => panic!("{file} needs a cases array"),
    }
}

fn text<'a>(case: &'a Value, field: &str) -> &'a str {
    case[field]
        .as_str()
        .unwrap_or_else(|| panic!("case without a string {field}: {case}"))
}

/// JSON equality with numbers compared by value, as JavaScript sees them (`1` equals `1.0`).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| y.get(key).is_some_and(|other| same_json(value, other)))
        }
        _ => a == b,
    }
}

#[test]
fn url_normalisation_vectors_hold() {
    let cases = cases("url_normalisation.json");
    assert!(cases.len() >= 20, "at least 20 URL cases");
    for case in &cases {
        let expected = text(case, "expected");
        assert_eq!(normalise_url(text(case, "input")), expected, "{case}");
        assert_eq!(
            normalise_url(expected),
            expected,
            "normalising is idempotent: {case}"
        );
        let parsed = PublicUrl::parse(text(case, "input"));
        match text(case, "result") {
            "valid" => assert_eq!(parsed.map(String::from).as_deref(), Ok(expected), "{case}"),
            "invalid" => assert_eq!(parsed, Err(UrlError::Invalid), "{case}"),
            "empty" => assert_eq!(parsed, Err(UrlError::Empty), "{case}"),
            other => panic!("unknown result {other}: {case}"),
        }
    }
}

#[test]
fn package_name_vectors_hold() {
    let cases = cases("package_name.json");
    assert!(cases.len() >= 20, "at least 20 package name cases");
    for case in &cases {
        let result = PackageName::parse(text(case, "input"));
        match case["valid"].as_bool() {
            Some(true) => {
                let name = result.unwrap_or_else(|e| panic!("refused with {e}: {case}"));
                assert_eq!(name.as_str(), text(case, "expected"), "{case}");
            }
            Some(false) => {
                let error = result.expect_err(&format!("accepted: {case}"));
                assert_eq!(error.to_string(), text(case, "error"), "{case}");
            }
            None => panic!("case without a boolean valid: {case}"),
        }
    }
}

#[test]
fn setting_conversion_vectors_hold() {
    let cases = cases("setting_conversion.json");
    assert!(cases.len() >= 15, "at least 15 conversion cases");
    for case in &cases {
        let from: Setting =
            serde_json::from_value(case["from"].clone()).unwrap_or_else(|e| panic!("{e}: {case}"));
        let to = SettingType::parse(text(case, "toType")).unwrap_or_else(|| panic!("unknown toType: {case}"));
        let expected: Setting =
            serde_json::from_value(case["expected"].clone()).unwrap_or_else(|e| panic!("{e}: {case}"));
        let converted = convert_setting(&from, to);
        assert_eq!(converted, expected, "{case}");
        let written = serde_json::to_value(&converted).unwrap();
        assert!(
            same_json(&written, &case["expected"]),
            "JSON form {written} differs: {case}"
        );
    }
}

#[test]
fn config_import_vectors_hold() {
    let cases = cases("config_import.json");
    assert!(cases.len() >= 30, "at least 30 import cases");
    for case in &cases {
        let result = validate_config(&case["input"]);
        match case["valid"].as_bool() {
            Some(true) => {
                let config = result.unwrap_or_else(|e| panic!("refused with {e:?}: {case}"));
                if let Some(settings) = case.get("settings") {
                    let actual = serde_json::to_value(&config.settings).unwrap();
                    assert!(
                        same_json(&actual, settings),
                        "settings imported as {actual}: {case}"
                    );
                }
                if let Some(summary) = case.get("summary") {
                    let actual = serde_json::to_value(import_summary(&config)).unwrap();
                    assert_eq!(&actual, summary, "{case}");
                }
            }
            Some(false) => {
                let error = result.expect_err(&format!("accepted: {case}"));
                assert_eq!(error.to_string(), text(case, "error"), "{case}");
            }
            None => panic!("case without a boolean valid: {case}"),
        }
    }
}

#[test]
fn config_file_vectors_hold() {
    for case in &cases("config_file.json") {
        let result = check_config_file(text(case, "fileName"), text(case, "contents"))
            .map_err(|e| e.to_string())
            .and_then(|value| validate_config(&value).map_err(|e| e.to_string()));
        match case["valid"].as_bool() {
            Some(true) => assert!(result.is_ok(), "refused with {result:?}: {case}"),
            Some(false) => assert_eq!(result.err().as_deref(), Some(text(case, "error")), "{case}"),
            None => panic!("case without a boolean valid: {case}"),
        }
    }
}

#[test]
fn local_server_url_vectors_hold() {
    let cases = cases("server_url_local.json");
    assert!(cases.len() >= 20, "at least 20 local server URL cases");
    for case in &cases {
        let input = text(case, "input");
        let local = text(case, "local");
        let standard = text(case, "standard");
        let keep = ServerUrlRule::KeepLoopbackHttp;
        assert_eq!(normalise_server_url(input, keep), local, "{case}");
        assert_eq!(normalise_server_url(local, keep), local, "idempotent: {case}");
        assert_eq!(
            normalise_server_url(input, ServerUrlRule::HttpsOnly),
            standard,
            "{case}"
        );
        assert_eq!(normalise_url(input), standard, "{case}");
        let parsed = PublicUrl::parse_server(input, keep);
        match text(case, "result") {
            "valid" => assert_eq!(parsed.map(String::from).as_deref(), Ok(local), "{case}"),
            "invalid" => assert_eq!(parsed, Err(UrlError::Invalid), "{case}"),
            "empty" => assert_eq!(parsed, Err(UrlError::Empty), "{case}"),
            other => panic!("unknown result {other}: {case}"),
        }
    }
}
