//! Faults and bad input, black-box, on SQLite and PostgreSQL: control characters in texts and addresses
//! (one 4xx on both databases, never a 5xx), bodies that are not JSON objects (refused, nothing changed),
//! and a stale `x-org-id` (ignored where no organization is named, refused where one is).

use crate::helpers::TestApp;
use crate::org_fixtures::{
    BACKENDS, User, add_member, call, code, create_org, get, in_org, send, sign_up, spawn,
};
use adapter_db::Backend;
use reqwest::Method;
use serde_json::{Value, json};

const PKG: &str = "com.example.notes";

fn registration(package: &str) -> Value {
    json!({
        "packageName": package,
        "name": "Notes",
        "description": "Takes notes",
        "onboardingInstructions": "Say 'take a note'",
        "publicUrl": "https://notes.example.com",
        "logoURL": "https://cdn.example.com/logo.png",
        "appType": "standard",
        "permissions": [{"type": "MICROPHONE", "description": "To hear notes"}],
    })
}

/// A call of the identity service (`/auth/v1`) with the anon key, as supabase-js makes it.
async fn auth(app: &TestApp, path: &str, body: &Value) -> (u16, Value) {
    let response = app
        .client
        .post(app.url(&format!("/auth/v1{path}")))
        .header("apikey", "built-in")
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `body` with `field` (a top-level key, or `a.b` one level down) set to `text`.
fn with(body: &Value, field: &str, text: &str) -> Value {
    let mut body = body.clone();
    match field.split_once('.') {
        Some((outer, inner)) => body[outer][inner] = json!(text),
        None => body[field] = json!(text),
    }
    body
}

/// Texts no person types: every one holds a control character (NUL first: PostgreSQL refuses it in text,
/// SQLite stores it).
const CONTROL: [&str; 6] = [
    "Acme\u{0}",
    "\u{0}",
    "Ac\u{1}me",
    "Acme\u{1b}[31m",
    "Ac\u{7f}me",
    "Ac\u{85}me",
];

/// Texts that are odd but no control characters: accepted or refused by the field's own rules, never a 5xx.
const ODD: [&str; 7] = [
    "Acme\u{2028}Line",
    "\u{202e}emcA",
    "\u{feff}Acme",
    "Acme \u{1f680}",
    "\u{10ffff}",
    "日本語のアプリ",
    "a\u{200b}@b.co",
];

async fn control_characters_are_refused_alike(backend: Backend) {
    let app = spawn(backend).await;
    let ada = sign_up(&app, "ada@example.com").await;
    let org = create_org(&app, &ada, "Acme").await;
    let (status, body) = in_org(
        &app,
        Method::POST,
        "/api/dev/apps/register",
        &ada,
        &org,
        Some(registration(PKG)),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let app_path = format!("/api/dev/apps/{PKG}");

    // Each text field and address of the product API, with the request that carries it.
    let register_other = registration("com.example.other");
    let cases: Vec<(Method, String, Value, &str, bool)> = vec![
        // (method, path, body, field, in the x-org-id organization)
        (
            Method::POST,
            "/api/dev/apps/register".into(),
            register_other.clone(),
            "name",
            true,
        ),
        (
            Method::POST,
            "/api/dev/apps/register".into(),
            register_other.clone(),
            "description",
            true,
        ),
        (
            Method::POST,
            "/api/dev/apps/register".into(),
            register_other,
            "onboardingInstructions",
            true,
        ),
        (
            Method::PUT,
            app_path.clone(),
            json!({"name": "Notes"}),
            "name",
            true,
        ),
        (
            Method::PUT,
            app_path.clone(),
            json!({"description": "x"}),
            "description",
            true,
        ),
        (
            Method::PUT,
            app_path.clone(),
            json!({"onboardingInstructions": "x"}),
            "onboardingInstructions",
            true,
        ),
        (
            Method::PATCH,
            format!("{app_path}/share-emails"),
            json!({"emails": []}),
            "emails",
            true,
        ),
        (
            Method::POST,
            "/api/orgs".into(),
            json!({"name": "Acme"}),
            "name",
            false,
        ),
        (
            Method::POST,
            "/api/orgs".into(),
            json!({"name": "Acme", "contactEmail": "x"}),
            "contactEmail",
            false,
        ),
        (
            Method::PUT,
            format!("/api/orgs/{org}"),
            json!({"name": "Acme", "profile": {"contactEmail": "ops@acme.example.com"}}),
            "name",
            false,
        ),
        (
            Method::PUT,
            format!("/api/orgs/{org}"),
            json!({"name": "Acme", "profile": {"contactEmail": "x"}}),
            "profile.contactEmail",
            false,
        ),
        (
            Method::PUT,
            format!("/api/orgs/{org}"),
            json!({"name": "Acme", "profile": {"contactEmail": "ops@acme.example.com", "description": "x"}}),
            "profile.description",
            false,
        ),
        (
            Method::POST,
            format!("/api/orgs/{org}/members"),
            json!({"role": "member"}),
            "email",
            false,
        ),
    ];
    for (method, path, body, field, scoped) in &cases {
        for text in CONTROL {
            // An address field gets an address around the control character.
            let value = if field.contains("mail") {
                format!("{text}ops@acme.example.com")
            } else {
                text.to_owned()
            };
            let sent = if *field == "emails" {
                json!({"emails": ["tester@example.com", value]})
            } else {
                with(body, field, &value)
            };
            let header = scoped.then_some(org.as_str());
            let (status, answer) =
                call(&app, method.clone(), path, Some(&ada.token), header, Some(&sent)).await;
            assert_eq!(
                status, 400,
                "{backend:?} {method} {path} {field}={text:?}: {answer}"
            );
            assert_eq!(code(&answer), "VALIDATION", "{answer}");
            let named = if *field == "emails" {
                "emails[1]".to_owned()
            } else {
                (*field).to_owned()
            };
            assert_eq!(
                answer["fields"][&named], "Remove the control characters (such as NUL) from this text",
                "{backend:?} {method} {path}: {answer}"
            );
        }
        for text in ODD {
            let sent = if *field == "emails" {
                json!({"emails": [text]})
            } else {
                with(body, field, text)
            };
            let header = scoped.then_some(org.as_str());
            let (status, answer) =
                call(&app, method.clone(), path, Some(&ada.token), header, Some(&sent)).await;
            assert!(
                status < 500,
                "{backend:?} {method} {path} {field}={text:?}: {status} {answer}"
            );
        }
    }

    // Nothing of the refused requests was stored.
    let (_, stored) = in_org(&app, Method::GET, &app_path, &ada, &org, None).await;
    assert!(!stored.to_string().contains("\\u0000"), "{stored}");

    // Line breaks and tabs are text in a multi-line field, and refused in a one-line one.
    let (status, body) = in_org(
        &app,
        Method::PUT,
        &app_path,
        &ada,
        &org,
        Some(json!({"description": "Line one\r\nLine two\n\tindented", "onboardingInstructions": "1.\tSay hi\n2.\tListen"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["description"], "Line one\r\nLine two\n\tindented");
    let (status, body) = in_org(
        &app,
        Method::PUT,
        &app_path,
        &ada,
        &org,
        Some(json!({"name": "Two\nlines"})),
    )
    .await;
    assert_eq!((status, code(&body)), (400, "VALIDATION"), "{body}");
    assert!(body["fields"]["name"].is_string(), "{body}");
    let (status, body) = in_org(
        &app,
        Method::PUT,
        &app_path,
        &ada,
        &org,
        Some(json!({"tools": [{"id": "t", "description": "Does\nthings", "activationPhrases": ["do\u{0}it"]}]})),
    )
    .await;
    assert_eq!((status, code(&body)), (400, "VALIDATION"), "{body}");
    assert!(
        body["fields"]["tools[0].activationPhrases[0]"].is_string(),
        "{body}"
    );

    // The identity service: sign-up, codes and recovery refuse such an address in its own shape.
    for (path, body) in [
        (
            "/signup",
            json!({"email": "eve\u{0}@example.com", "password": "a sufficiently long passphrase 42"}),
        ),
        ("/otp", json!({"email": "eve\u{0}@example.com"})),
        ("/recover", json!({"email": "eve@example.com\u{0}"})),
        (
            "/token?grant_type=password",
            json!({"email": "ada\u{0}@example.com", "password": "x"}),
        ),
    ] {
        let (status, answer) = auth(&app, path, &body).await;
        assert_eq!(status, 400, "{backend:?} {path}: {answer}");
        assert_eq!(answer["code"], "email_address_invalid", "{path}: {answer}");
    }
    let (status, answer) = auth(
        &app,
        "/signup",
        &json!({"email": "eve@example.com", "password": "a sufficiently long passphrase 42", "data": {"full_name": "Eve\u{0}"}}),
    )
    .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (400, Some("validation_failed")),
        "{answer}"
    );
    for text in CONTROL.iter().chain(ODD.iter()) {
        let (status, answer) = auth(
            &app,
            "/signup",
            &json!({"email": format!("{text}@example.com"), "password": "a sufficiently long passphrase 42", "data": {"name": text}}),
        )
        .await;
        assert!(
            status < 500,
            "{backend:?} sign-up with {text:?}: {status} {answer}"
        );
    }
}

#[tokio::test]
async fn control_characters_in_texts_and_addresses_are_one_field_error_on_both_databases() {
    for backend in BACKENDS {
        control_characters_are_refused_alike(backend).await;
    }
}

async fn bodies_that_are_not_objects(backend: Backend) {
    let app = spawn(backend).await;
    let ada = sign_up(&app, "ada@example.com").await;
    let org = create_org(&app, &ada, "Acme").await;
    let (status, body) = in_org(
        &app,
        Method::POST,
        "/api/dev/apps/register",
        &ada,
        &org,
        Some(registration(PKG)),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let app_path = format!("/api/dev/apps/{PKG}");
    let (status, body) = in_org(
        &app,
        Method::PATCH,
        &format!("{app_path}/share-emails"),
        &ada,
        &org,
        Some(json!({"emails": ["tester@example.com"]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, before) = in_org(&app, Method::GET, &app_path, &ada, &org, None).await;
    assert_eq!(before["sharedWithEmails"], json!(["tester@example.com"]));
    assert_eq!(before["sharedWithOrganization"], false);

    // An array is not read as the struct's fields in order, nor is any other non-object.
    for (method, path, body) in [
        (Method::PATCH, format!("{app_path}/share-emails"), json!([])),
        (
            Method::PATCH,
            format!("{app_path}/share-emails"),
            json!([["eve@example.com"]]),
        ),
        (Method::PATCH, format!("{app_path}/visibility"), json!([true])),
        (Method::PUT, app_path.clone(), json!(["Renamed"])),
        (Method::POST, format!("{app_path}/share"), json!([[]])),
        (Method::PATCH, format!("/api/permissions/{PKG}"), json!([[]])),
        (Method::PATCH, format!("{app_path}/visibility"), json!(true)),
        (Method::PATCH, format!("{app_path}/visibility"), json!("x")),
        (Method::PATCH, format!("{app_path}/visibility"), json!(null)),
    ] {
        let (status, answer) = in_org(&app, method.clone(), &path, &ada, &org, Some(body.clone())).await;
        assert_eq!(
            (status, code(&answer)),
            (400, "INVALID_JSON"),
            "{backend:?} {method} {path} {body}: {answer}"
        );
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains("expected a JSON object"),
            "{answer}"
        );
    }
    let (_, after) = in_org(&app, Method::GET, &app_path, &ada, &org, None).await;
    assert_eq!(after, before, "{backend:?}: refused bodies changed the app");

    // Organization routes.
    let (_, orgs_before) = get(&app, "/api/orgs", &ada).await;
    for (method, path, body) in [
        (
            Method::POST,
            "/api/orgs".to_owned(),
            json!(["Evil Corp", "eve@example.com"]),
        ),
        (Method::PUT, format!("/api/orgs/{org}"), json!(["Renamed"])),
        (
            Method::POST,
            format!("/api/orgs/{org}/members"),
            json!(["eve@example.com", "admin"]),
        ),
        (
            Method::POST,
            "/api/auth/exchange-token".to_owned(),
            json!(["token"]),
        ),
        (
            Method::PUT,
            "/api/dev/auth/profile".to_owned(),
            json!([{"full_name": "x"}]),
        ),
    ] {
        let (status, answer) = send(&app, method.clone(), &path, &ada, body.clone()).await;
        assert_eq!(
            (status, code(&answer)),
            (400, "INVALID_JSON"),
            "{backend:?} {method} {path}: {answer}"
        );
    }
    let (_, orgs_after) = get(&app, "/api/orgs", &ada).await;
    assert_eq!(
        orgs_after, orgs_before,
        "{backend:?}: refused bodies changed the organizations"
    );

    // The identity service answers in its own shape.
    for path in ["/signup", "/token?grant_type=password", "/otp", "/recover"] {
        let (status, answer) = auth(
            &app,
            path,
            &json!(["ada@example.com", "a sufficiently long passphrase 42"]),
        )
        .await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (400, Some("bad_json")),
            "{backend:?} {path}: {answer}"
        );
        assert!(
            answer["msg"].as_str().unwrap().contains("expected a JSON object"),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn a_body_that_is_not_a_json_object_is_refused_and_changes_nothing() {
    for backend in BACKENDS {
        bodies_that_are_not_objects(backend).await;
    }
}

async fn stale_org_header(backend: Backend) {
    let app = spawn(backend).await;
    let ada = sign_up(&app, "ada@example.com").await;
    let bob = sign_up(&app, "bob@example.com").await;
    let cyd = sign_up(&app, "cyd@example.com").await;
    let acme = create_org(&app, &ada, "Acme").await;
    add_member(&app, &ada, &acme, &bob, "member").await;
    add_member(&app, &ada, &acme, &cyd, "member").await;

    // Bob leaves; Cyd is removed by the admin. Both keep sending Acme's id, as a browser tab would.
    let (status, body) = send(
        &app,
        Method::DELETE,
        &format!("/api/orgs/{acme}/members/{}", bob.id),
        &bob,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = send(
        &app,
        Method::DELETE,
        &format!("/api/orgs/{acme}/members/{}", cyd.id),
        &ada,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    for user in [&bob, &cyd] {
        let stale = Some(acme.as_str());
        let (status, body) = call(&app, Method::GET, "/api/orgs", Some(&user.token), stale, None).await;
        assert_eq!(status, 200, "{backend:?}: listing with a stale x-org-id: {body}");
        assert!(!body.to_string().contains(&acme), "{body}");
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/orgs",
            Some(&user.token),
            stale,
            Some(&json!({"name": "Next"})),
        )
        .await;
        assert_eq!(status, 201, "{backend:?}: creating with a stale x-org-id: {body}");

        // Organization-scoped routes still refuse it.
        let (status, body) = call(&app, Method::GET, "/api/dev/apps", Some(&user.token), stale, None).await;
        assert_eq!(status, 403, "{backend:?}: {body}");
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/dev/apps/register",
            Some(&user.token),
            stale,
            Some(&registration(PKG)),
        )
        .await;
        assert_eq!(status, 403, "{backend:?}: {body}");
        let (status, body) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}"),
            Some(&user.token),
            stale,
            None,
        )
        .await;
        assert!(matches!(status, 403 | 404), "{backend:?}: {status} {body}");
    }

    // Accepting an invitation to another organization names no organization either.
    let other = create_org(&app, &ada, "Other").await;
    add_member_with_stale_header(&app, &ada, &other, &bob, &acme).await;
    let (status, body) = call(
        &app,
        Method::GET,
        "/api/dev/apps",
        Some(&bob.token),
        Some(&other),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

async fn add_member_with_stale_header(app: &TestApp, admin: &User, org: &str, user: &User, stale: &str) {
    let token = crate::org_fixtures::invite(app, admin, org, &user.email, "member").await;
    let (status, body) = call(
        app,
        Method::POST,
        &format!("/api/orgs/accept/{token}"),
        Some(&user.token),
        Some(stale),
        None,
    )
    .await;
    assert_eq!(status, 200, "accepting with a stale x-org-id: {body}");
}

#[tokio::test]
async fn a_stale_org_header_is_ignored_where_no_organization_is_named_and_refused_where_one_is() {
    for backend in BACKENDS {
        stale_org_header(backend).await;
    }
}
