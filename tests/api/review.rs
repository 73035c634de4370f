//! The platform-admin calls (`/api/admin/…`) on SQLite and PostgreSQL: the review queue, the review dialog,
//! approve and reject (revision check, races, self-reviews, the decision e-mail in the outbox), platform
//! users (the last admin stays) and the admin-only maintenance tools; who may call what; error bodies pinned
//! by snapshots.

use crate::helpers::{TestApp, assert_snapshot, spawn_app_with};
use crate::org_fixtures::{BACKENDS, PUBLIC_URL, User, call, code, sign_up};
use adapter_db::{Backend, Db};
use app_server::admin_cli::{self, AdminCommand};
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};

const PKG: &str = "com.acme.notes";
const CONTACT: &str = "ops@acme.example.com";

/// A server with an admin, a reviewer, a developer whose organization (with a contact e-mail) has a
/// SUBMITTED app, and a developer of another organization.
struct World {
    app: TestApp,
    admin: User,
    reviewer: User,
    dev: User,
    outsider: User,
    acme: String,
}

fn db(app: &TestApp) -> Db {
    Db::connect(&app.database_url, 1).unwrap()
}

async fn grant(app: &TestApp, email: &str, role: &str) {
    admin_cli::run(
        &db(app),
        AdminCommand::Grant {
            email: email.into(),
            role: role.into(),
        },
    )
    .await
    .unwrap();
}

/// Inserts an app of `org` in `status` (stored spelling), `updatedAt` 2023-11-14T22:13:20Z.
fn insert_app(app: &TestApp, org: &str, developer: &str, package: &str, status: &str) {
    adapter_db::testing::insert_app(
        &db(app),
        org,
        developer,
        package,
        "https://notes.acme.example.com",
        status,
    );
}

async fn create_org(app: &TestApp, user: &User, name: &str, contact: Option<&str>) -> String {
    let mut body = json!({"name": name});
    if let Some(contact) = contact {
        body["contactEmail"] = json!(contact);
    }
    let (status, body) = call(
        app,
        Method::POST,
        "/api/orgs",
        Some(&user.token),
        None,
        Some(&body),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    body["data"]["id"].as_str().unwrap().to_owned()
}

async fn world_with(backend: Backend, extra: &[(&str, &str)]) -> World {
    let vars: Vec<(&str, &str)> = [("PORTAL_PUBLIC_URL", PUBLIC_URL)]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    let app = spawn_app_with(backend, &vars).await;
    let admin = sign_up(&app, "admin@portal.example.com").await;
    grant(&app, &admin.email, "admin").await;
    let reviewer = sign_up(&app, "reviewer@portal.example.com").await;
    grant(&app, &reviewer.email, "reviewer").await;
    let dev = sign_up(&app, "dev@acme.example.com").await;
    let acme = create_org(&app, &dev, "Acme", Some(CONTACT)).await;
    insert_app(&app, &acme, &dev.id, PKG, "SUBMITTED");
    let outsider = sign_up(&app, "someone@else.example.com").await;
    World {
        app,
        admin,
        reviewer,
        dev,
        outsider,
        acme,
    }
}

async fn world(backend: Backend) -> World {
    world_with(backend, &[]).await
}

impl World {
    async fn get(&self, path: &str, user: &User) -> (u16, Value) {
        call(&self.app, Method::GET, path, Some(&user.token), None, None).await
    }

    async fn post(&self, path: &str, user: &User, body: Value) -> (u16, Value) {
        call(
            &self.app,
            Method::POST,
            path,
            Some(&user.token),
            None,
            Some(&body),
        )
        .await
    }

    /// The app's `updatedAt` as the reviewer opens it.
    async fn revision(&self, package: &str) -> Value {
        let (status, body) = self
            .get(&format!("/api/admin/apps/{package}"), &self.reviewer)
            .await;
        assert_eq!(status, 200, "{body}");
        body["updatedAt"].clone()
    }

    async fn decide(&self, user: &User, package: &str, action: &str, notes: Option<&str>) -> (u16, Value) {
        let seen = self.revision(package).await;
        self.post(
            &format!("/api/admin/apps/{package}/{action}"),
            user,
            json!({"notes": notes, "expectedUpdatedAt": seen}),
        )
        .await
    }

    /// `(kind, recipient, link)` of every e-mail in the outbox of the given kind.
    fn outbox(&self, kind: &str) -> Vec<(String, Option<String>, String)> {
        use adapter_db::schema::email_outbox::dsl;
        let db = db(&self.app);
        let mut conn = db.connection().unwrap();
        dsl::email_outbox
            .filter(dsl::kind.eq(kind))
            .order(dsl::created_at.asc())
            .select((dsl::recipient, dsl::link, dsl::body))
            .load::<(String, Option<String>, String)>(&mut *conn)
            .unwrap()
    }

    /// Sets the stored `updatedAt` of an app, as an edit by its developer would.
    fn touch(&self, package: &str, updated_at: i64) {
        use adapter_db::schema::apps;
        let db = db(&self.app);
        let mut conn = db.connection().unwrap();
        diesel::update(apps::table.filter(apps::package_name.eq(package)))
            .set(apps::updated_at.eq(updated_at))
            .execute(&mut *conn)
            .unwrap();
    }
}

/// Every platform-admin call with a valid body: `(method, path, body, reviewers may)`.
fn admin_calls() -> Vec<(Method, String, Option<Value>, bool)> {
    let seen = json!("2023-11-14T22:13:20Z");
    vec![
        (Method::GET, "/api/admin/apps/stats".into(), None, true),
        (Method::GET, "/api/admin/apps/submitted".into(), None, true),
        (Method::GET, format!("/api/admin/apps/{PKG}"), None, true),
        (
            Method::POST,
            format!("/api/admin/apps/{PKG}/approve"),
            Some(json!({"notes": "ok", "expectedUpdatedAt": seen})),
            true,
        ),
        (
            Method::POST,
            format!("/api/admin/apps/{PKG}/reject"),
            Some(json!({"notes": "no", "expectedUpdatedAt": seen})),
            true,
        ),
        (Method::GET, "/api/admin/users".into(), None, false),
        (
            Method::POST,
            "/api/admin/users".into(),
            Some(json!({"email": "new@portal.example.com", "role": "reviewer"})),
            false,
        ),
        (
            Method::DELETE,
            "/api/admin/users/new@portal.example.com".into(),
            None,
            false,
        ),
        (Method::GET, "/api/admin/debug".into(), None, false),
        (Method::POST, "/api/admin/fix-app-statuses".into(), None, false),
        (
            Method::POST,
            "/api/admin/create-test-submission".into(),
            None,
            false,
        ),
    ]
}

#[tokio::test]
async fn anonymous_callers_and_developers_are_refused_and_reviewers_only_review() {
    for backend in BACKENDS {
        let w = world(backend).await;
        for (method, path, body, reviewers_may) in admin_calls() {
            let (status, answer) = call(&w.app, method.clone(), &path, None, None, body.as_ref()).await;
            assert_eq!(status, 401, "{backend:?} anonymous {method} {path}: {answer}");
            assert_eq!(code(&answer), "UNAUTHORIZED");
            for developer in [&w.dev, &w.outsider] {
                let (status, answer) = call(
                    &w.app,
                    method.clone(),
                    &path,
                    Some(&developer.token),
                    None,
                    body.as_ref(),
                )
                .await;
                assert_eq!(status, 403, "{backend:?} developer {method} {path}: {answer}");
                assert_eq!(code(&answer), "FORBIDDEN");
            }
            if !reviewers_may {
                let (status, answer) = call(
                    &w.app,
                    method.clone(),
                    &path,
                    Some(&w.reviewer.token),
                    None,
                    body.as_ref(),
                )
                .await;
                assert_eq!(status, 403, "{backend:?} reviewer {method} {path}: {answer}");
                assert_eq!(code(&answer), "FORBIDDEN");
            }
        }
        // Nothing the refused calls asked for happened.
        let (_, app) = w.get(&format!("/api/admin/apps/{PKG}"), &w.admin).await;
        assert_eq!(app["appStoreStatus"], "SUBMITTED", "{backend:?}");
        assert!(app["history"].as_array().unwrap().is_empty());
        let (_, users) = w.get("/api/admin/users", &w.admin).await;
        assert_eq!(users.as_array().unwrap().len(), 2, "{backend:?}: {users}");
    }
}

#[tokio::test]
async fn the_dashboard_and_the_queue_show_submissions_with_their_organization() {
    for backend in BACKENDS {
        let w = world(backend).await;
        insert_app(&w.app, &w.acme, &w.dev.id, "com.acme.draft", "DEVELOPMENT");
        insert_app(&w.app, &w.acme, &w.dev.id, "com.acme.live", "PUBLISHED");
        let (status, stats) = w.get("/api/admin/apps/stats", &w.reviewer).await;
        assert_eq!(status, 200, "{backend:?}: {stats}");
        assert_eq!(
            stats["counts"],
            json!({"development": 1, "submitted": 1, "published": 1, "rejected": 0, "admins": 1, "reviewers": 1}),
            "{backend:?}"
        );
        let recent = stats["recentSubmissions"].as_array().unwrap();
        assert_eq!(recent.len(), 1);
        assert_eq!(recent[0]["packageName"], PKG);

        let (status, queue) = w.get("/api/admin/apps/submitted", &w.admin).await;
        assert_eq!(status, 200, "{backend:?}: {queue}");
        let queue = queue.as_array().unwrap();
        assert_eq!(queue.len(), 1, "{backend:?}");
        let entry = queue[0].as_object().unwrap();
        let mut keys: Vec<&str> = entry.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "_id",
                "appHealthStatus",
                "createdAt",
                "description",
                "developerId",
                "logoURL",
                "name",
                "organization",
                "packageName",
                "publicUrl",
                "updatedAt",
            ]
        );
        assert_eq!(entry["_id"], PKG);
        assert_eq!(entry["developerId"], w.dev.id.as_str());
        assert_eq!(entry["organization"], json!({"id": w.acme, "name": "Acme"}));
        assert_eq!(entry["appHealthStatus"], "unknown");
        assert_eq!(entry["updatedAt"], "2023-11-14T22:13:20Z");
    }
}

#[tokio::test]
async fn the_review_dialog_shows_the_app_its_organization_and_its_history() {
    for backend in BACKENDS {
        let w = world(backend).await;
        let (status, app) = w.get(&format!("/api/admin/apps/{PKG}"), &w.reviewer).await;
        assert_eq!(status, 200, "{backend:?}: {app}");
        assert_eq!(app["packageName"], PKG);
        assert_eq!(app["appStoreStatus"], "SUBMITTED");
        assert_eq!(app["organization"], json!({"id": w.acme, "name": "Acme"}));
        assert_eq!(app["selfReview"], false);
        assert_eq!(app["history"], json!([]));

        let (status, _) = w
            .decide(&w.reviewer, PKG, "reject", Some("Add a privacy policy"))
            .await;
        assert_eq!(status, 200);
        let (_, app) = w.get(&format!("/api/admin/apps/{PKG}"), &w.admin).await;
        let history = app["history"].as_array().unwrap();
        assert_eq!(history.len(), 1, "{backend:?}: {app}");
        assert_eq!(history[0]["kind"], "rejected");
        assert_eq!(history[0]["actorEmail"], "reviewer@portal.example.com");
        assert_eq!(history[0]["notes"], "Add a privacy policy");
        assert_eq!(history[0]["selfReview"], false);

        let (status, missing) = w.get("/api/admin/apps/com.acme.nothing", &w.reviewer).await;
        assert_eq!((status, code(&missing)), (404, "NOT_FOUND"));
        let (status, malformed) = w.get("/api/admin/apps/Not%20A%20Package", &w.reviewer).await;
        assert_eq!((status, code(&malformed)), (404, "NOT_FOUND"));
    }
}

#[tokio::test]
async fn developers_see_app_review_for_a_reviewers_decision_and_staff_see_who() {
    for backend in BACKENDS {
        let w = world(backend).await;
        let (status, _) = w
            .decide(&w.reviewer, PKG, "reject", Some("Add a privacy policy"))
            .await;
        assert_eq!(status, 200, "{backend:?}");

        let (status, history) = call(
            &w.app,
            Method::GET,
            &format!("/api/dev/apps/{PKG}/history"),
            Some(&w.dev.token),
            Some(&w.acme),
            None,
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {history}");
        let decision = history
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["kind"] == "rejected")
            .unwrap_or_else(|| panic!("{backend:?}: no rejection in {history}"));
        assert_eq!(decision["actor"], "App Review", "{backend:?}");
        assert_eq!(decision["notes"], "Add a privacy policy");
        assert!(
            !history.to_string().contains("reviewer@portal.example.com"),
            "{backend:?}: the developer's history names the reviewer: {history}"
        );

        // Nor does the app itself, in any of the developer's reads of it.
        for path in [format!("/api/dev/apps/{PKG}"), "/api/dev/apps".to_owned()] {
            let (status, body) = call(
                &w.app,
                Method::GET,
                &path,
                Some(&w.dev.token),
                Some(&w.acme),
                None,
            )
            .await;
            assert_eq!(status, 200, "{backend:?}: {body}");
            let app = if body.is_array() { body[0].clone() } else { body };
            assert_eq!(app["reviewedBy"], "App Review", "{backend:?}: {path}");
            assert!(
                !app.to_string().contains("reviewer@portal.example.com"),
                "{backend:?}: {path} names the reviewer: {app}"
            );
        }

        // Staff, in the Admin Panel, still see who decided.
        let (_, app) = w.get(&format!("/api/admin/apps/{PKG}"), &w.admin).await;
        assert_eq!(app["history"][0]["actorEmail"], "reviewer@portal.example.com");
        assert_eq!(app["reviewedBy"], "reviewer@portal.example.com");
    }
}

#[tokio::test]
async fn the_review_dialog_says_what_changed_since_the_last_decision_and_carries_the_tester_link() {
    for backend in BACKENDS {
        let w = world(backend).await;
        let dev = |method: Method, path: String, body: Option<Value>| {
            let w = &w;
            async move {
                call(
                    &w.app,
                    method,
                    &path,
                    Some(&w.dev.token),
                    Some(&w.acme),
                    body.as_ref(),
                )
                .await
            }
        };
        let (_, app) = w.get(&format!("/api/admin/apps/{PKG}"), &w.reviewer).await;
        assert_eq!(
            app["sinceLastDecision"],
            json!({"state": "first_review", "changedFields": [], "changes": []}),
            "{backend:?}"
        );
        let description_before = app["description"].clone();
        let permissions_before = app["permissions"].clone();
        assert_eq!(app["testerUrl"], Value::Null);

        let (status, _) = w
            .decide(&w.reviewer, PKG, "reject", Some("Describe it better"))
            .await;
        assert_eq!(status, 200, "{backend:?}");
        let (status, body) = dev(
            Method::PUT,
            format!("/api/dev/apps/{PKG}"),
            Some(json!({"description": "Takes notes, and reads them back"})),
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        let (status, body) = dev(
            Method::PATCH,
            format!("/api/permissions/{PKG}"),
            Some(json!({"permissions": [{"type": "CAMERA", "description": "Reads the whiteboard"}]})),
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        let (status, body) = dev(Method::POST, format!("/api/dev/apps/{PKG}/publish"), None).await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        let (status, link) = dev(Method::GET, format!("/api/dev/apps/{PKG}/share"), None).await;
        assert_eq!(status, 200, "{backend:?}: {link}");

        let (_, app) = w.get(&format!("/api/admin/apps/{PKG}"), &w.reviewer).await;
        // What changed since the rejection, each field with its value then and now (issue 35, item 8).
        let since = &app["sinceLastDecision"];
        assert_eq!(since["state"], "compared", "{backend:?}: {app}");
        assert_eq!(
            since["changedFields"],
            json!(["description", "permissions"]),
            "{backend:?}"
        );
        assert_eq!(
            since["changes"][0],
            json!({"field": "description", "old": description_before, "new": "Takes notes, and reads them back"}),
            "{backend:?}"
        );
        assert_eq!(since["changes"][1]["field"], "permissions", "{backend:?}");
        assert_eq!(since["changes"][1]["old"], permissions_before, "{backend:?}");
        assert_eq!(since["changes"][1]["new"], app["permissions"], "{backend:?}");
        assert_eq!(since["changes"][1]["new"][0]["type"], "CAMERA", "{backend:?}");
        assert_eq!(since["changes"].as_array().map(Vec::len), Some(2), "{backend:?}");
        assert_eq!(app["testerUrl"], link["installUrl"], "{backend:?}");
        // The recorded snapshot is the dialog's business only: the history does not show it.
        let rejected = app["history"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["kind"] == "rejected")
            .unwrap();
        assert_eq!(rejected["detail"], Value::Null, "{backend:?}: {rejected}");
    }
}

#[tokio::test]
async fn staff_see_only_apps_submitted_at_least_once_and_never_their_tester_list() {
    for backend in BACKENDS {
        let w = world(backend).await;
        insert_app(&w.app, &w.acme, &w.dev.id, "com.acme.draft", "DEVELOPMENT");
        for package in [PKG, "com.acme.draft"] {
            let (status, body) = call(
                &w.app,
                Method::PATCH,
                &format!("/api/dev/apps/{package}/share-emails"),
                Some(&w.dev.token),
                Some(&w.acme),
                Some(&json!({"emails": ["tester@acme.example.com"]})),
            )
            .await;
            assert_eq!(status, 200, "{backend:?} {package}: {body}");
        }
        let seen = json!({"notes": "no", "expectedUpdatedAt": "2023-11-14T22:13:20Z"});
        for staff in [&w.reviewer, &w.admin] {
            // An app still in its first development is not there for staff, whatever the call.
            let (status, body) = w.get("/api/admin/apps/com.acme.draft", staff).await;
            assert_eq!((status, code(&body)), (404, "NOT_FOUND"), "{backend:?}: {body}");
            for action in ["approve", "reject"] {
                let (status, body) = w
                    .post(
                        &format!("/api/admin/apps/com.acme.draft/{action}"),
                        staff,
                        seen.clone(),
                    )
                    .await;
                assert_eq!(
                    (status, code(&body)),
                    (404, "NOT_FOUND"),
                    "{backend:?} {action}: {body}"
                );
            }
            // A submitted one is, without its testers.
            let (status, body) = w.get(&format!("/api/admin/apps/{PKG}"), staff).await;
            assert_eq!(status, 200, "{backend:?}: {body}");
            assert!(body.get("sharedWithEmails").is_none(), "{backend:?}: {body}");
            assert!(!body.to_string().contains("tester@acme.example.com"));
        }
        let (status, rejected) = w.decide(&w.reviewer, PKG, "reject", Some("Not yet")).await;
        assert_eq!(status, 200, "{backend:?}: {rejected}");
        assert!(
            rejected.get("sharedWithEmails").is_none(),
            "{backend:?}: {rejected}"
        );
        // Rejected, it stays visible to staff with its history.
        let (status, body) = w.get(&format!("/api/admin/apps/{PKG}"), &w.reviewer).await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        assert_eq!(body["appStoreStatus"], "REJECTED");
        assert_eq!(body["history"].as_array().unwrap().len(), 1);
        assert!(!body.to_string().contains("tester@acme.example.com"));
        for path in ["/api/admin/apps/stats", "/api/admin/apps/submitted"] {
            let (status, body) = w.get(path, &w.reviewer).await;
            assert_eq!(status, 200);
            assert!(!body.to_string().contains("tester@acme.example.com"), "{path}");
        }
        // The developers still see their own testers.
        let (status, body) = call(
            &w.app,
            Method::GET,
            &format!("/api/dev/apps/{PKG}"),
            Some(&w.dev.token),
            Some(&w.acme),
            None,
        )
        .await;
        assert_eq!(status, 200);
        assert!(body.to_string().contains("tester@acme.example.com"), "{body}");
    }
}

#[tokio::test]
async fn approving_publishes_stamps_records_and_emails_the_contact() {
    for backend in BACKENDS {
        let w = world(backend).await;
        let (status, app) = w.decide(&w.admin, PKG, "approve", Some(" Looks great ")).await;
        assert_eq!(status, 200, "{backend:?}: {app}");
        assert_eq!(app["appStoreStatus"], "PUBLISHED");
        assert_eq!(app["reviewNotes"], "Looks great");
        assert_eq!(app["reviewedBy"], "admin@portal.example.com");
        assert!(app["reviewedAt"].is_string());
        assert_ne!(app["updatedAt"], "2023-11-14T22:13:20Z");
        let mails = w.outbox("app_approved");
        assert_eq!(mails.len(), 1, "{backend:?}");
        assert_eq!(mails[0].0, CONTACT);
        assert_eq!(
            mails[0].1.as_deref(),
            Some(&*format!("{PUBLIC_URL}/apps/{PKG}/edit"))
        );
        assert!(mails[0].2.contains("Looks great"));
        // Deciding again is an illegal transition.
        let (status, again) = w.decide(&w.reviewer, PKG, "approve", None).await;
        assert_eq!((status, code(&again)), (409, "ILLEGAL_TRANSITION"), "{again}");
        assert_eq!(w.outbox("app_approved").len(), 1);
    }
}

#[tokio::test]
async fn rejecting_needs_notes_and_emails_them_to_the_contact() {
    for backend in BACKENDS {
        let w = world(backend).await;
        for notes in [None, Some(""), Some("   ")] {
            let (status, body) = w.decide(&w.reviewer, PKG, "reject", notes).await;
            assert_eq!((status, code(&body)), (400, "REVIEW_NOTES_REQUIRED"), "{notes:?}");
        }
        let (status, app) = w
            .decide(&w.reviewer, PKG, "reject", Some("The logo is blurry"))
            .await;
        assert_eq!(status, 200, "{backend:?}: {app}");
        assert_eq!(app["appStoreStatus"], "REJECTED");
        assert_eq!(app["reviewNotes"], "The logo is blurry");
        let mails = w.outbox("app_rejected");
        assert_eq!(mails.len(), 1, "{backend:?}");
        assert_eq!(mails[0].0, CONTACT);
        assert!(mails[0].2.contains("The logo is blurry"));
        assert!(w.outbox("app_approved").is_empty());
    }
}

#[tokio::test]
async fn a_decision_without_the_revision_or_on_a_stale_one_is_refused_and_changes_nothing() {
    for backend in BACKENDS {
        let w = world(backend).await;
        let path = format!("/api/admin/apps/{PKG}/approve");
        let (status, body) = w.post(&path, &w.reviewer, json!({"notes": "ok"})).await;
        assert_eq!((status, code(&body)), (400, "REVISION_REQUIRED"), "{body}");
        let (status, body) = w
            .post(&path, &w.reviewer, json!({"expectedUpdatedAt": "yesterday"}))
            .await;
        assert_eq!((status, code(&body)), (400, "INVALID_JSON"), "{body}");

        let seen = w.revision(PKG).await;
        // The developer edits the app after the reviewer opened it.
        w.touch(PKG, 1_700_000_060_000);
        for action in ["approve", "reject"] {
            let (status, body) = w
                .post(
                    &format!("/api/admin/apps/{PKG}/{action}"),
                    &w.reviewer,
                    json!({"notes": "seen", "expectedUpdatedAt": seen}),
                )
                .await;
            assert_eq!(status, 409, "{backend:?} {action}: {body}");
            assert_eq!(code(&body), "APP_CHANGED");
            assert_eq!(body["error"], "The app changed since you opened it");
        }
        let (_, app) = w.get(&format!("/api/admin/apps/{PKG}"), &w.reviewer).await;
        assert_eq!(app["appStoreStatus"], "SUBMITTED");
        assert_eq!(app["history"], json!([]));
        assert!(w.outbox("app_approved").is_empty() && w.outbox("app_rejected").is_empty());
        // Reloaded, the reviewer decides on what is there now.
        let (status, _) = w.decide(&w.reviewer, PKG, "approve", None).await;
        assert_eq!(status, 200, "{backend:?}");
    }
}

#[tokio::test]
async fn of_a_concurrent_approval_and_rejection_exactly_one_wins() {
    for backend in BACKENDS {
        let w = world(backend).await;
        for round in 0..4 {
            let package = format!("com.acme.race{round}");
            insert_app(&w.app, &w.acme, &w.dev.id, &package, "SUBMITTED");
            let seen = w.revision(&package).await;
            let (approve_path, reject_path) = (
                format!("/api/admin/apps/{package}/approve"),
                format!("/api/admin/apps/{package}/reject"),
            );
            let approve = w.post(&approve_path, &w.admin, json!({"expectedUpdatedAt": seen}));
            let reject = w.post(
                &reject_path,
                &w.reviewer,
                json!({"notes": "no", "expectedUpdatedAt": seen}),
            );
            let ((a, a_body), (r, r_body)) = tokio::join!(approve, reject);
            let mut statuses = [a, r];
            statuses.sort_unstable();
            assert_eq!(
                statuses,
                [200, 409],
                "{backend:?} round {round}: {a_body} {r_body}"
            );
            let loser = if a == 409 { &a_body } else { &r_body };
            assert!(
                ["CONFLICT", "ILLEGAL_TRANSITION"].contains(&code(loser)),
                "{backend:?}: {loser}"
            );
            let (_, app) = w.get(&format!("/api/admin/apps/{package}"), &w.admin).await;
            let expected = if a == 200 { "PUBLISHED" } else { "REJECTED" };
            assert_eq!(app["appStoreStatus"], expected);
            assert_eq!(app["history"].as_array().unwrap().len(), 1, "{backend:?}: {app}");
        }
        let decision_mails = w.outbox("app_approved").len() + w.outbox("app_rejected").len();
        assert_eq!(decision_mails, 4, "{backend:?}");
    }
}

#[tokio::test]
async fn a_reviewer_in_the_apps_own_organization_may_decide_and_it_shows_as_a_self_review() {
    for backend in BACKENDS {
        let w = world(backend).await;
        // The reviewer builds apps too, in an organization of their own.
        let own = create_org(
            &w.app,
            &w.reviewer,
            "Reviewer Labs",
            Some("labs@portal.example.com"),
        )
        .await;
        insert_app(&w.app, &own, &w.reviewer.id, "com.labs.tool", "SUBMITTED");
        let (_, app) = w.get("/api/admin/apps/com.labs.tool", &w.reviewer).await;
        assert_eq!(app["selfReview"], true, "{backend:?}: {app}");
        let (_, by_admin) = w.get("/api/admin/apps/com.labs.tool", &w.admin).await;
        assert_eq!(by_admin["selfReview"], false);
        let (status, _) = w.decide(&w.reviewer, "com.labs.tool", "approve", None).await;
        assert_eq!(status, 200, "{backend:?}");
        let (_, app) = w.get("/api/admin/apps/com.labs.tool", &w.admin).await;
        assert_eq!(app["history"][0]["kind"], "approved");
        assert_eq!(app["history"][0]["selfReview"], true, "{backend:?}: {app}");
        // A review of someone else's app is not one.
        let (status, _) = w.decide(&w.reviewer, PKG, "approve", None).await;
        assert_eq!(status, 200);
        let (_, other) = w.get(&format!("/api/admin/apps/{PKG}"), &w.admin).await;
        assert_eq!(other["history"][0]["selfReview"], false);
    }
}

#[tokio::test]
async fn admins_add_list_and_remove_platform_users_and_the_last_admin_stays() {
    for backend in BACKENDS {
        let w = world(backend).await;
        let (status, added) = w
            .post(
                "/api/admin/users",
                &w.admin,
                json!({"email": "New.Reviewer@Portal.example.com", "role": "reviewer"}),
            )
            .await;
        assert_eq!(status, 201, "{backend:?}: {added}");
        assert_eq!(added["email"], "new.reviewer@portal.example.com");
        assert_eq!(added["role"], "reviewer");
        assert_eq!(added["addedBy"], "admin@portal.example.com");
        assert_eq!(added["pending"], true);

        let (status, users) = w.get("/api/admin/users", &w.admin).await;
        assert_eq!(status, 200);
        let mut emails: Vec<(&str, &str)> = users
            .as_array()
            .unwrap()
            .iter()
            .map(|u| (u["email"].as_str().unwrap(), u["role"].as_str().unwrap()))
            .collect();
        emails.sort_unstable();
        assert_eq!(
            emails,
            [
                ("admin@portal.example.com", "admin"),
                ("new.reviewer@portal.example.com", "reviewer"),
                ("reviewer@portal.example.com", "reviewer"),
            ],
            "{backend:?}"
        );

        let (status, body) = w
            .post(
                "/api/admin/users",
                &w.admin,
                json!({"email": "not-an-email", "role": "boss"}),
            )
            .await;
        assert_eq!(status, 400, "{body}");
        assert!(body["fields"]["email"].is_string() && body["fields"]["role"].is_string());

        let delete = |path: String, user: &User| {
            let token = user.token.clone();
            let app = &w.app;
            async move { call(app, Method::DELETE, &path, Some(&token), None, None).await }
        };
        // The only admin can neither remove nor demote themself.
        let (status, body) = delete("/api/admin/users/admin@portal.example.com".into(), &w.admin).await;
        assert_eq!((status, code(&body)), (409, "LAST_ADMIN"), "{backend:?}: {body}");
        let (status, body) = w
            .post(
                "/api/admin/users",
                &w.admin,
                json!({"email": "admin@portal.example.com", "role": "reviewer"}),
            )
            .await;
        assert_eq!((status, code(&body)), (409, "LAST_ADMIN"), "{body}");

        let (status, _) = delete(
            "/api/admin/users/new.reviewer%40portal.example.com".into(),
            &w.admin,
        )
        .await;
        assert_eq!(status, 204, "{backend:?}");
        let (status, body) = delete(
            "/api/admin/users/new.reviewer@portal.example.com".into(),
            &w.admin,
        )
        .await;
        assert_eq!((status, code(&body)), (404, "NOT_FOUND"));

        // With a second admin, the first may go; the second is then the last.
        let (status, _) = w
            .post(
                "/api/admin/users",
                &w.admin,
                json!({"email": w.reviewer.email, "role": "admin"}),
            )
            .await;
        assert_eq!(status, 201);
        let (status, _) = delete("/api/admin/users/admin@portal.example.com".into(), &w.reviewer).await;
        assert_eq!(status, 204, "{backend:?}");
        let (status, _) = w.get("/api/admin/users", &w.admin).await;
        assert_eq!(status, 403, "the removed admin lost the role at once");
        let (status, body) = delete(format!("/api/admin/users/{}", w.reviewer.email), &w.reviewer).await;
        assert_eq!((status, code(&body)), (409, "LAST_ADMIN"));
    }
}

#[tokio::test]
async fn two_admins_removing_each_other_at_once_leave_one() {
    for backend in BACKENDS {
        let w = world(backend).await;
        grant(&w.app, &w.reviewer.email, "admin").await;
        let first = call(
            &w.app,
            Method::DELETE,
            "/api/admin/users/reviewer@portal.example.com",
            Some(&w.admin.token),
            None,
            None,
        );
        let second = call(
            &w.app,
            Method::DELETE,
            "/api/admin/users/admin@portal.example.com",
            Some(&w.reviewer.token),
            None,
            None,
        );
        let ((a, _), (b, _)) = tokio::join!(first, second);
        let mut statuses = [a, b];
        statuses.sort_unstable();
        assert!(
            statuses == [204, 409] || statuses == [204, 403],
            "{backend:?}: {statuses:?}"
        );
        let mut remaining = Vec::new();
        for user in [&w.admin, &w.reviewer] {
            let (status, users) = w.get("/api/admin/users", user).await;
            if status == 200 {
                let admins = users
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|u| u["role"] == "admin")
                    .count();
                remaining.push((user.email.clone(), admins));
            }
        }
        assert_eq!(remaining.len(), 1, "{backend:?}: {remaining:?}");
        assert_eq!(remaining[0].1, 1, "{backend:?}: {remaining:?}");
    }
}

#[tokio::test]
async fn the_debug_report_names_unknown_statuses_and_fixing_them_repairs_them_once() {
    for backend in BACKENDS {
        let w = world(backend).await;
        insert_app(&w.app, &w.acme, &w.dev.id, "com.acme.legacy", "development");
        insert_app(&w.app, &w.acme, &w.dev.id, "com.acme.odd", "ARCHIVED");
        let quiet = create_org(&w.app, &w.outsider, "Quiet", None).await;
        insert_app(&w.app, &quiet, &w.outsider.id, "com.quiet.app", "SUBMITTED");
        let (status, report) = w.get("/api/admin/debug", &w.admin).await;
        assert_eq!(status, 200, "{backend:?}: {report}");
        assert_eq!(
            report["storedStatuses"],
            json!({"ARCHIVED": 1, "SUBMITTED": 2, "development": 1}),
            "{backend:?}"
        );
        assert_eq!(report["unknownStatuses"], 2);
        assert_eq!(report["submittedWithoutContact"], json!(["com.quiet.app"]));
        assert_eq!(
            report["platformRoles"],
            json!({"admins": 1, "reviewers": 1, "pending": 0})
        );
        assert_eq!(report["demoMode"], false);

        let (status, fixed) = w.post("/api/admin/fix-app-statuses", &w.admin, json!({})).await;
        assert_eq!(status, 200, "{backend:?}: {fixed}");
        assert_eq!(
            fixed,
            json!({"fixed": 2, "packageNames": ["com.acme.legacy", "com.acme.odd"]})
        );
        let (_, stats) = w.get("/api/admin/apps/stats", &w.admin).await;
        assert_eq!(stats["counts"]["development"], 2);
        let (_, again) = w.post("/api/admin/fix-app-statuses", &w.admin, json!({})).await;
        assert_eq!(again, json!({"fixed": 0, "packageNames": []}));
    }
}

#[tokio::test]
async fn test_submissions_exist_only_in_demo_mode_and_join_the_queue() {
    for backend in BACKENDS {
        let w = world(backend).await;
        let (status, body) = w
            .post("/api/admin/create-test-submission", &w.admin, json!({}))
            .await;
        assert_eq!((status, code(&body)), (404, "NOT_FOUND"), "{backend:?}: {body}");

        let demo = world_with(backend, &[("PORTAL_DEMO", "true")]).await;
        // The admin has no organization yet.
        let (status, body) = demo
            .post("/api/admin/create-test-submission", &demo.admin, json!({}))
            .await;
        assert_eq!(
            (status, code(&body)),
            (400, "NO_ORGANIZATION"),
            "{backend:?}: {body}"
        );
        let (status, body) = call(
            &demo.app,
            Method::POST,
            "/api/admin/create-test-submission",
            Some(&demo.admin.token),
            Some(&demo.acme),
            None,
        )
        .await;
        assert_eq!(
            (status, code(&body)),
            (403, "FORBIDDEN"),
            "someone else's organization: {body}"
        );
        let (status, body) = call(
            &demo.app,
            Method::POST,
            "/api/admin/create-test-submission",
            Some(&demo.admin.token),
            Some("not-an-id"),
            None,
        )
        .await;
        assert_eq!((status, code(&body)), (400, "ORG_MALFORMED"), "{body}");

        let own = create_org(&demo.app, &demo.admin, "Platform", None).await;
        let (status, app) = demo
            .post("/api/admin/create-test-submission", &demo.admin, json!({}))
            .await;
        assert_eq!(status, 201, "{backend:?}: {app}");
        assert_eq!(app["appStoreStatus"], "SUBMITTED");
        assert_eq!(app["orgId"], own.as_str());
        assert_eq!(app["publicUrl"], "https://test-submission.invalid");
        let package = app["packageName"].as_str().unwrap().to_owned();
        let (_, queue) = demo.get("/api/admin/apps/submitted", &demo.reviewer).await;
        assert!(
            queue
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["packageName"] == package.as_str()),
            "{queue}"
        );
        let (_, opened) = demo.get(&format!("/api/admin/apps/{package}"), &demo.admin).await;
        assert_eq!(opened["history"][0]["kind"], "submitted");
        assert_eq!(opened["history"][0]["detail"], json!({"testSubmission": true}));
        assert_eq!(opened["selfReview"], true);
    }
}

#[tokio::test]
async fn error_bodies_are_pinned() {
    let mut first: Option<Value> = None;
    for backend in BACKENDS {
        let w = world_with(backend, &[]).await;
        let decision = json!({"notes": "x", "expectedUpdatedAt": "2023-11-14T22:13:20Z"});
        let approve = format!("/api/admin/apps/{PKG}/approve");
        let mut bodies = serde_json::Map::new();
        let mut record = |name: &str, (status, body): (u16, Value)| {
            bodies.insert(name.to_owned(), json!({"status": status, "body": body}));
        };
        record(
            "anonymous",
            call(&w.app, Method::GET, "/api/admin/apps/stats", None, None, None).await,
        );
        record("developer", w.get("/api/admin/apps/submitted", &w.dev).await);
        record("reviewer_on_users", w.get("/api/admin/users", &w.reviewer).await);
        record("reviewer_on_debug", w.get("/api/admin/debug", &w.reviewer).await);
        record(
            "unknown_app",
            w.get("/api/admin/apps/com.example.none", &w.reviewer).await,
        );
        record(
            "reject_without_notes",
            w.post(
                &format!("/api/admin/apps/{PKG}/reject"),
                &w.reviewer,
                json!({"expectedUpdatedAt": "2023-11-14T22:13:20Z"}),
            )
            .await,
        );
        record(
            "without_revision",
            w.post(&approve, &w.reviewer, json!({"notes": "x"})).await,
        );
        record(
            "stale_revision",
            w.post(
                &approve,
                &w.reviewer,
                json!({"expectedUpdatedAt": "2023-11-14T22:13:19Z"}),
            )
            .await,
        );
        let (status, _) = w.post(&approve, &w.reviewer, decision.clone()).await;
        assert_eq!(status, 200);
        record(
            "not_submitted",
            w.post(&approve, &w.reviewer, decision.clone()).await,
        );
        record(
            "invalid_user",
            w.post(
                "/api/admin/users",
                &w.admin,
                json!({"email": "x", "role": "owner"}),
            )
            .await,
        );
        record(
            "last_admin",
            call(
                &w.app,
                Method::DELETE,
                "/api/admin/users/admin@portal.example.com",
                Some(&w.admin.token),
                None,
                None,
            )
            .await,
        );
        record(
            "unknown_user",
            call(
                &w.app,
                Method::DELETE,
                "/api/admin/users/nobody@portal.example.com",
                Some(&w.admin.token),
                None,
                None,
            )
            .await,
        );
        record(
            "demo_off",
            w.post("/api/admin/create-test-submission", &w.admin, json!({}))
                .await,
        );
        let bodies = Value::Object(bodies);
        match &first {
            None => first = Some(bodies.clone()),
            Some(sqlite) => assert_eq!(&bodies, sqlite, "{backend:?} answers as SQLite does"),
        }
        assert_snapshot("admin_errors", &bodies);
    }
}
