//! The audit log over HTTP, on SQLite and PostgreSQL: the entries a registration, a key regeneration and a
//! tester list write (who, what, from where, never a secret), the organization admin's reads with filters and
//! cursor pages, the CSV export, and who may not read (members, platform staff who are not admins).

use crate::helpers::TestApp;
use crate::org_fixtures::{
    BACKENDS, User, add_member, call, create_org, in_org, invite_token, sign_up, spawn,
};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};

const PKG: &str = "com.example.audited";
/// A `;` in it: in a locale whose list separator is `;`, an unquoted field would split into a formula cell.
const AGENT: &str = "audit-test/1.0 (glasses; =1+1)";

/// A read of an audit log through the checked client (the answer must match the OpenAPI document).
async fn read(app: &TestApp, path: &str, user: &User, accept: Option<&str>) -> reqwest::Response {
    let mut request = app
        .client
        .get(app.url(path))
        .bearer_auth(&user.token)
        .header("User-Agent", AGENT);
    if let Some(accept) = accept {
        request = request.header("Accept", accept);
    }
    app.send(request).await
}

async fn page(app: &TestApp, path: &str, user: &User) -> Value {
    let response = read(app, path, user, None).await;
    assert_eq!(response.status(), 200, "{path}");
    response.json().await.unwrap()
}

fn actions(page: &Value) -> Vec<String> {
    page["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect()
}

/// The text columns of a stored entry: actor e-mail, action, target id and label, changes.
type StoredEntry = (String, String, Option<String>, Option<String>, String);

/// Every stored entry's columns joined, as the database holds them.
fn stored_text(app: &TestApp) -> String {
    use adapter_db::schema::audit_log::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let rows: Vec<StoredEntry> = dsl::audit_log
        .select((
            dsl::actor_email,
            dsl::action,
            dsl::target_id,
            dsl::target_label,
            dsl::changes,
        ))
        .load(&mut *conn)
        .unwrap();
    format!("{rows:?}")
}

async fn audit_log_of_an_organization(backend: Backend) {
    let app = spawn(backend).await;
    let ada = sign_up(&app, "ada@example.com").await;
    let mia = sign_up(&app, "mia@example.com").await;
    let org = create_org(&app, &ada, "Acme").await;
    add_member(&app, &ada, &org, &mia, "member").await;

    let registration = json!({
        "packageName": PKG, "name": "Audited", "description": "d", "onboardingInstructions": "",
        "publicUrl": "https://audited.example.com", "logoURL": "https://audited.example.com/logo.png",
        "appType": "standard",
    });
    let (status, body) = in_org(
        &app,
        Method::POST,
        "/api/dev/apps/register",
        &ada,
        &org,
        Some(registration),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let first_key = body["apiKey"].as_str().unwrap().to_owned();
    // The key regeneration is made by a client that names itself (its user agent is recorded).
    let response = app
        .send(
            app.client
                .post(app.url(&format!("/api/dev/apps/{PKG}/api-key")))
                .bearer_auth(&ada.token)
                .header("x-org-id", &org)
                .header("User-Agent", AGENT),
        )
        .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    let second_key = body["apiKey"].as_str().unwrap().to_owned();
    let testers = json!({"emails": ["tess.tester@example.org", "tom.tester@example.org"]});
    let (status, body) = in_org(
        &app,
        Method::POST,
        &format!("/api/dev/apps/{PKG}/share"),
        &ada,
        &org,
        Some(testers),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let install_url = body["installUrl"].as_str().unwrap().to_owned();
    let token = install_url.rsplit('/').next().unwrap().to_owned();
    // A refused call (a member cannot delete an org-level thing such as another's role) writes nothing.
    let (status, _) = call(
        &app,
        Method::PATCH,
        &format!("/api/orgs/{org}/members/{}", ada.id),
        Some(&mia.token),
        None,
        Some(&json!({"role": "member"})),
    )
    .await;
    assert_eq!(status, 403);

    let log = format!("/api/orgs/{org}/audit-log");
    let all = page(&app, &log, &ada).await;
    assert_eq!(
        actions(&all),
        [
            "app.sharing_changed",
            "app.key_regenerated",
            "app.created",
            "invite.accepted",
            "invite.sent",
            "org.created"
        ],
        "{all}"
    );
    let newest = &all["data"]["entries"][0];
    assert_eq!(newest["actor"], json!({"id": ada.id, "email": "ada@example.com"}));
    assert_eq!(newest["organizationId"], json!(org));
    assert_eq!(
        newest["target"],
        json!({"kind": "app", "id": PKG, "label": "Audited"})
    );
    assert_eq!(
        newest["changes"],
        json!([{"field": "sharedWithEmailsCount", "old": 0, "new": 2}])
    );
    assert_eq!(newest["clientIp"], json!("127.0.0.1"));
    assert_eq!(all["data"]["entries"][1]["changes"], json!([]));
    assert_eq!(all["data"]["entries"][1]["userAgent"], json!(AGENT));
    assert_eq!(all["data"]["nextCursor"], Value::Null);

    // No secret in any entry, as answered or as stored: the keys, the tester link's token, the testers'
    // addresses, the invitation's token and its digest.
    let stored = stored_text(&app);
    let invitation = invite_token(&app, "mia@example.com");
    let invitation_digest = domain::common::secrets::digest_secret(&invitation);
    for secret in [
        &first_key,
        &second_key,
        &token,
        &"tess.tester@example.org".to_owned(),
        &"tom.tester".to_owned(),
        &invitation,
        &invitation_digest,
    ] {
        assert!(!all.to_string().contains(secret.as_str()), "{secret} answered");
        assert!(!stored.contains(secret.as_str()), "{secret} stored");
    }

    // Filters and cursor pages.
    let regenerated = page(&app, &format!("{log}?action=app.key_regenerated"), &ada).await;
    assert_eq!(actions(&regenerated), ["app.key_regenerated"]);
    assert_eq!(
        actions(&page(&app, &format!("{log}?actor={}", ada.id), &ada).await).len(),
        5
    );
    // Mia's only act: accepting the invitation.
    assert_eq!(
        actions(&page(&app, &format!("{log}?actor={}", mia.id), &ada).await),
        ["invite.accepted"]
    );
    assert_eq!(
        actions(&page(&app, &format!("{log}?app={PKG}"), &ada).await).len(),
        3
    );
    assert!(actions(&page(&app, &format!("{log}?to=2000-01-01"), &ada).await).is_empty());
    let first = page(&app, &format!("{log}?limit=2"), &ada).await;
    assert_eq!(actions(&first), ["app.sharing_changed", "app.key_regenerated"]);
    let cursor = first["data"]["nextCursor"].as_str().unwrap().to_owned();
    let second = page(&app, &format!("{log}?limit=2&cursor={cursor}"), &ada).await;
    assert_eq!(actions(&second), ["app.created", "invite.accepted"]);
    let cursor = second["data"]["nextCursor"].as_str().unwrap().to_owned();
    let third = page(&app, &format!("{log}?limit=2&cursor={cursor}"), &ada).await;
    assert_eq!(actions(&third), ["invite.sent", "org.created"]);
    assert_eq!(third["data"]["nextCursor"], Value::Null);

    // Bad filters name their field.
    for (query, field) in [
        ("action=app.renamed", "action"),
        ("actor=ada", "actor"),
        ("limit=0", "limit"),
        ("cursor=x", "cursor"),
    ] {
        let response = read(&app, &format!("{log}?{query}"), &ada, None).await;
        assert_eq!(response.status(), 400, "{query}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], "VALIDATION", "{body}");
        assert!(body["fields"].get(field).is_some(), "{body}");
    }

    // The CSV of the filtered entries, by `format=csv` or by `Accept`.
    for (path, accept) in [
        (format!("{log}?format=csv"), None),
        (log.clone(), Some("text/csv")),
    ] {
        let response = read(&app, &path, &ada, accept).await;
        assert_eq!(response.status(), 200);
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/csv")
        );
        assert!(
            response.headers()["content-disposition"]
                .to_str()
                .unwrap()
                .starts_with("attachment")
        );
        let csv = response.text().await.unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert!(
            lines[0].starts_with("time,organizationId,actorId,actorEmail,action"),
            "{csv}"
        );
        assert_eq!(lines.len(), 7, "{csv}");
        assert!(
            lines[1].contains("app.sharing_changed") && lines[3].contains("app.created"),
            "{csv}"
        );
        assert!(
            lines[2].contains("app.key_regenerated") && lines[2].ends_with(&format!("\"{AGENT}\",\"\"")),
            "{csv}"
        );
        // Every field of every row is quoted.
        for line in &lines[1..] {
            assert!(line.starts_with('"') && line.ends_with('"'), "{line}");
        }
    }
    let csv = read(&app, &format!("{log}?format=csv&action=app.created"), &ada, None)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");

    // A member, and a platform log read by someone who is not a platform admin: 403.
    assert_eq!(read(&app, &log, &mia, None).await.status(), 403);
    assert_eq!(
        read(&app, &format!("{log}?format=csv"), &mia, None)
            .await
            .status(),
        403
    );
    assert_eq!(read(&app, "/api/admin/audit-log", &ada, None).await.status(), 403);

    // A role change is recorded with the member, the old role and the new one.
    let (status, body) = call(
        &app,
        Method::PATCH,
        &format!("/api/orgs/{org}/members/{}", mia.id),
        Some(&ada.token),
        None,
        Some(&json!({"role": "admin"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let changed = page(&app, &format!("{log}?action=member.role_changed"), &ada).await;
    let entry = &changed["data"]["entries"][0];
    assert_eq!(
        entry["target"],
        json!({"kind": "member", "id": mia.id, "label": "mia@example.com"})
    );
    assert_eq!(
        entry["changes"],
        json!([{"field": "role", "old": "member", "new": "admin"}])
    );
    assert_eq!(entry["actor"]["email"], "ada@example.com");
}

#[tokio::test]
async fn an_admin_reads_filters_pages_and_exports_the_audit_log() {
    for backend in BACKENDS {
        audit_log_of_an_organization(backend).await;
    }
}

/// The entry of `action` in a page (the newest one).
fn entry_of<'a>(page: &'a Value, action: &str) -> &'a Value {
    page["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == action)
        .unwrap_or_else(|| panic!("no {action} in {page}"))
}

async fn targets_are_named(backend: Backend) {
    let app = spawn(backend).await;
    let ada = sign_up(&app, "ada@example.com").await;
    let mia = sign_up(&app, "mia@example.com").await;
    let org = create_org(&app, &ada, "Acme").await;
    add_member(&app, &ada, &org, &mia, "member").await;
    for (package, name) in [(PKG, "Audited"), ("com.example.doomed", "Doomed Notes")] {
        let registration = json!({
            "packageName": package, "name": name, "description": "d", "onboardingInstructions": "",
            "publicUrl": "https://audited.example.com", "logoURL": "https://audited.example.com/logo.png",
            "appType": "standard",
        });
        let (status, body) = in_org(
            &app,
            Method::POST,
            "/api/dev/apps/register",
            &ada,
            &org,
            Some(registration),
        )
        .await;
        assert_eq!(status, 201, "{backend:?}: {body}");
    }
    let (status, body) = in_org(
        &app,
        Method::PATCH,
        &format!("/api/dev/apps/{PKG}/visibility"),
        &ada,
        &org,
        Some(json!({"sharedWithOrganization": true})),
    )
    .await;
    assert_eq!(status, 200, "{backend:?}: {body}");
    let (status, body) = call(
        &app,
        Method::PATCH,
        &format!("/api/orgs/{org}/members/{}", mia.id),
        Some(&ada.token),
        None,
        Some(&json!({"role": "admin"})),
    )
    .await;
    assert_eq!(status, 200, "{backend:?}: {body}");
    // The app is renamed after the entries about it: the log shows its name now.
    let (status, body) = in_org(
        &app,
        Method::PUT,
        &format!("/api/dev/apps/{PKG}"),
        &ada,
        &org,
        Some(json!({"name": "Audited Weather"})),
    )
    .await;
    assert_eq!(status, 200, "{backend:?}: {body}");
    let (status, body) = in_org(
        &app,
        Method::DELETE,
        "/api/dev/apps/com.example.doomed",
        &ada,
        &org,
        None,
    )
    .await;
    assert_eq!(status, 204, "{backend:?}: {body}");

    let log = page(&app, &format!("/api/orgs/{org}/audit-log"), &ada).await;
    assert_eq!(
        entry_of(&log, "app.visibility_changed")["target"],
        json!({"kind": "app", "id": PKG, "label": "Audited Weather"}),
        "{backend:?}"
    );
    assert_eq!(
        entry_of(&log, "member.role_changed")["target"],
        json!({"kind": "member", "id": mia.id, "label": "mia@example.com"}),
        "{backend:?}"
    );
    // A deleted app keeps the name it had, marked deleted; so do the entries written before it went.
    assert_eq!(
        entry_of(&log, "app.deleted")["target"],
        json!({"kind": "app", "id": "com.example.doomed", "label": "Doomed Notes", "deleted": true}),
        "{backend:?}"
    );
    let created: Vec<&Value> = log["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "app.created" && e["target"]["id"] == "com.example.doomed")
        .collect();
    assert_eq!(created.len(), 1, "{backend:?}");
    assert_eq!(created[0]["target"]["deleted"], true, "{backend:?}");
    // The organization's own entries name it.
    let org_named = log["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["target"]["kind"] == "organization")
        .all(|e| e["target"]["label"] == "Acme");
    assert!(org_named, "{backend:?}: {log}");
    // The CSV carries the names too.
    let csv = read(
        &app,
        &format!("/api/orgs/{org}/audit-log"),
        &ada,
        Some("text/csv"),
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(csv.contains("\"Audited Weather\""), "{backend:?}: {csv}");
    assert!(csv.contains("\"Doomed Notes\""), "{backend:?}: {csv}");
}

#[tokio::test]
async fn targets_are_shown_by_name_and_deleted_ones_by_the_name_they_had() {
    for backend in BACKENDS {
        targets_are_named(backend).await;
    }
}
