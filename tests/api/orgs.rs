//! The organization calls (`/api/orgs…`) as the web UI makes them, on SQLite and PostgreSQL: the personal
//! organization, profile, members, roles, invitations by e-mail (links read from the outbox), and what
//! each role may not do.

use crate::helpers::{TestApp, User, spawn_app_on};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];

async fn body(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The token of the newest invitation e-mail to `to`, from the outbox.
fn invite_token(app: &TestApp, to: &str) -> String {
    use adapter_db::schema::email_outbox::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let link: Option<String> = dsl::email_outbox
        .filter(dsl::recipient.eq(to))
        .filter(dsl::kind.eq("org_invite"))
        .order(dsl::created_at.desc())
        .select(dsl::link)
        .first(&mut *conn)
        .unwrap();
    let link = link.unwrap();
    assert!(link.contains("/invite/accept?token="), "{link}");
    link.split("token=").nth(1).unwrap().to_owned()
}

/// Moves every invitation's last e-mail `minutes` into the past (its expiry is seven days after it), as
/// time passing would.
fn age_invitations(app: &TestApp, minutes: i64) {
    use adapter_db::schema::org_invites::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    diesel::update(dsl::org_invites)
        .set(dsl::expires_at.eq(dsl::expires_at - minutes * 60_000))
        .execute(&mut *conn)
        .unwrap();
}

/// Sets the e-mail count of the open invitation of `to`, as earlier resends would have.
fn set_emails_sent(app: &TestApp, to: &str, count: i32) {
    use adapter_db::schema::org_invites::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    diesel::update(dsl::org_invites.filter(dsl::email.eq(to)))
        .set(dsl::email_sent_count.eq(count))
        .execute(&mut *conn)
        .unwrap();
}

/// How many invitation e-mails went to `to`.
fn invitation_emails(app: &TestApp, to: &str) -> i64 {
    use adapter_db::schema::email_outbox::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    dsl::email_outbox
        .filter(dsl::recipient.eq(to))
        .filter(dsl::kind.eq("org_invite"))
        .count()
        .get_result(&mut *conn)
        .unwrap()
}

/// `POST path` with a JSON body as the holder of `token`.
async fn post(app: &TestApp, token: &str, path: String, body: Value) -> reqwest::Response {
    app.call(Method::POST, &path, token, Some(body)).await
}

/// Status, `Retry-After` and body of a call.
async fn limited(response: reqwest::Response) -> (StatusCode, Option<u64>, Value) {
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let (status, body) = body(response).await;
    (status, retry_after, body)
}

async fn personal_org(app: &TestApp, user: &User) -> String {
    let (status, list) = body(app.call(Method::GET, "/api/orgs", &user.token, None).await).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["data"][0]["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_new_user_gets_one_personal_organization() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada.lovelace@example.com").await;
        // Two first visits at once still make one.
        let (first, second) = tokio::join!(
            app.call(Method::GET, "/api/orgs", &ada.token, None),
            app.call(Method::GET, "/api/orgs", &ada.token, None)
        );
        let (_, first) = body(first).await;
        let (_, second) = body(second).await;
        assert_eq!(first["success"], true);
        // Exactly one of the two calls made it, and says so.
        assert_ne!(
            first["personalOrgCreated"], second["personalOrgCreated"],
            "{backend:?}"
        );
        assert_eq!(first["data"].as_array().unwrap().len(), 1, "{backend:?}: {first}");
        assert_eq!(first["data"][0]["id"], second["data"][0]["id"], "{backend:?}");
        let org = &first["data"][0];
        assert_eq!(org["name"], "ada.lovelace's Organization");
        assert_eq!(org["role"], "admin");
        assert_eq!(org["profile"]["contactEmail"], Value::Null);

        let (status, _) = body(app.call(Method::GET, "/api/orgs", "", None).await).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
}

#[tokio::test]
async fn an_admin_creates_edits_and_deletes_an_organization() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada@example.com").await;

        // A bad contact address is refused before anything is made.
        let (status, refused) = body(
            app.call(
                Method::POST,
                "/api/orgs",
                &ada.token,
                Some(json!({"name": "Acme", "contactEmail": "not an address"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
        assert!(refused["fields"]["contactEmail"].is_string(), "{refused}");
        let (status, refused) = body(
            app.call(Method::POST, "/api/orgs", &ada.token, Some(json!({"name": "  "})))
                .await,
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(refused["fields"]["name"], "Organization name is required");
        let (_, list) = body(app.call(Method::GET, "/api/orgs", &ada.token, None).await).await;
        assert_eq!(list["data"].as_array().unwrap().len(), 1, "only the personal one");

        let (status, created) = body(
            app.call(
                Method::POST,
                "/api/orgs",
                &ada.token,
                Some(json!({"name": "Acme", "contactEmail": "team@acme.test"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {created}");
        let id = created["data"]["id"].as_str().unwrap().to_owned();
        assert_eq!(created["data"]["profile"]["contactEmail"], "team@acme.test");
        assert_eq!(created["data"]["role"], "admin");

        let (status, details) = body(
            app.call(Method::GET, &format!("/api/orgs/{id}"), &ada.token, None)
                .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            details["data"]["members"],
            json!([{
                "user": {"id": ada.id, "email": "ada@example.com"},
                "role": "admin",
                "joinedAt": details["data"]["members"][0]["joinedAt"],
                "hasTwoFactor": false,
            }])
        );
        assert_eq!(details["data"]["pendingInvites"], json!([]));

        let (status, updated) = body(
            app.call(
                Method::PUT,
                &format!("/api/orgs/{id}"),
                &ada.token,
                Some(json!({"name": "Acme Labs", "profile": {
                    "website": "https://acme.test", "contactEmail": "hello@acme.test",
                    "description": "Glasses apps", "logo": null
                }})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{updated}");
        assert_eq!(updated["data"]["name"], "Acme Labs");
        assert_eq!(updated["data"]["profile"]["contactEmail"], "hello@acme.test");
        assert_eq!(updated["data"]["profile"]["website"], "https://acme.test");

        let (status, missing) = body(
            app.call(
                Method::PUT,
                &format!("/api/orgs/{id}"),
                &ada.token,
                Some(json!({"name": "Acme Labs", "profile": {"contactEmail": ""}})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{missing}");

        let (status, _) = body(
            app.call(Method::DELETE, &format!("/api/orgs/{id}"), &ada.token, None)
                .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let (status, gone) = body(
            app.call(Method::GET, &format!("/api/orgs/{id}"), &ada.token, None)
                .await,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(gone["code"], "NOT_FOUND");
    }
}

#[tokio::test]
async fn an_invitation_is_accepted_once_by_its_address_only() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada@example.com").await;
        let org = personal_org(&app, &ada).await;

        let (status, invited) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/{org}/members"),
                &ada.token,
                Some(json!({"email": "Bob@Example.com"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {invited}");
        assert_eq!(invited["data"]["role"], "member", "the default role");
        assert_eq!(invited["data"]["emailSentCount"], 1);
        let (status, again) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/{org}/members"),
                &ada.token,
                Some(json!({"email": "bob@example.com"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CONFLICT, "{again}");
        let token = invite_token(&app, "bob@example.com");

        // Someone else holding the link cannot use it.
        let carol = app.new_user("carol@example.com").await;
        let (status, wrong) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/accept/{token}"),
                &carol.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{wrong}");

        let bob = app.new_user("bob@example.com").await;
        let (status, joined) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/accept/{token}"),
                &bob.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{joined}");
        assert_eq!(joined["data"]["id"], org.as_str());
        let (status, used) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/accept/{token}"),
                &bob.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(
            used["error"].as_str().unwrap().contains("already been accepted"),
            "{used}"
        );
        let (status, unknown) = body(
            app.call(Method::POST, "/api/orgs/accept/not-a-token", &bob.token, None)
                .await,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{unknown}");

        let (_, details) = body(
            app.call(Method::GET, &format!("/api/orgs/{org}"), &bob.token, None)
                .await,
        )
        .await;
        assert_eq!(details["data"]["role"], "member");
        assert_eq!(details["data"]["members"].as_array().unwrap().len(), 2);

        // A second invitation to a member is refused; one to a new address, then joining another way,
        // answers "already a member" with the organization id after the colon.
        let (status, _) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/{org}/members"),
                &ada.token,
                Some(json!({"email": "bob@example.com"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CONFLICT);
    }
}

#[tokio::test]
async fn resent_links_replace_the_old_ones_and_cancelled_ones_stop_working() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada@example.com").await;
        let org = personal_org(&app, &ada).await;
        app.call(
            Method::POST,
            &format!("/api/orgs/{org}/members"),
            &ada.token,
            Some(json!({"email": "bob@example.com", "role": "admin"})),
        )
        .await;
        let first = invite_token(&app, "bob@example.com");
        // A resend waits ten minutes after the last e-mail.
        age_invitations(&app, 10);
        let (status, resent) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/{org}/invites/resend"),
                &ada.token,
                Some(json!({"email": "bob@example.com"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {resent}");
        assert_eq!(resent["data"]["emailSentCount"], 2);
        let second = invite_token(&app, "bob@example.com");
        assert_ne!(first, second);

        let bob = app.new_user("bob@example.com").await;
        let (status, _) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/accept/{first}"),
                &bob.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "the old link is dead");

        let (status, _) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/{org}/invites/rescind"),
                &ada.token,
                Some(json!({"email": "bob@example.com"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let (status, _) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/accept/{second}"),
                &bob.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "a cancelled link is dead");
        let (_, details) = body(
            app.call(Method::GET, &format!("/api/orgs/{org}"), &ada.token, None)
                .await,
        )
        .await;
        assert_eq!(details["data"]["pendingInvites"], json!([]));
    }
}

#[tokio::test]
async fn roles_decide_who_may_change_what_and_the_only_admin_stays() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada@example.com").await;
        let org = personal_org(&app, &ada).await;
        app.call(
            Method::POST,
            &format!("/api/orgs/{org}/members"),
            &ada.token,
            Some(json!({"email": "bob@example.com"})),
        )
        .await;
        let token = invite_token(&app, "bob@example.com");
        let bob = app.new_user("bob@example.com").await;
        app.call(
            Method::POST,
            &format!("/api/orgs/accept/{token}"),
            &bob.token,
            None,
        )
        .await;
        let stranger = app.new_user("eve@example.com").await;

        // A member reads but does not change the organization or its members.
        let edit = json!({"name": "Taken", "profile": {"contactEmail": "x@y.test"}});
        for (method, path, payload) in [
            (Method::PUT, format!("/api/orgs/{org}"), Some(edit.clone())),
            (Method::DELETE, format!("/api/orgs/{org}"), None),
            (
                Method::POST,
                format!("/api/orgs/{org}/members"),
                Some(json!({"email": "x@y.test"})),
            ),
            (
                Method::PATCH,
                format!("/api/orgs/{org}/members/{}", ada.id),
                Some(json!({"role": "member"})),
            ),
            (
                Method::DELETE,
                format!("/api/orgs/{org}/members/{}", ada.id),
                None,
            ),
        ] {
            let (status, answer) =
                body(app.call(method.clone(), &path, &bob.token, payload.clone()).await).await;
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{backend:?} member {method} {path}: {answer}"
            );
            // A stranger learns nothing: the organization does not exist for them.
            let (status, _) = body(app.call(method.clone(), &path, &stranger.token, payload).await).await;
            assert_eq!(
                status,
                StatusCode::NOT_FOUND,
                "{backend:?} stranger {method} {path}"
            );
        }
        let (status, _) = body(
            app.call(Method::GET, &format!("/api/orgs/{org}"), &stranger.token, None)
                .await,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);

        // The only admin cannot leave; no one changes their own role or removes themselves.
        let (status, only) = body(
            app.call(
                Method::DELETE,
                &format!("/api/orgs/{org}/members/{}", ada.id),
                &ada.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            only["error"],
            "You cannot leave the organization as you are the only admin. Please promote another member to admin first."
        );
        let (status, _) = body(
            app.call(
                Method::PATCH,
                &format!("/api/orgs/{org}/members/{}", ada.id),
                &ada.token,
                Some(json!({"role": "member"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);

        // Promote Bob; then Ada may leave, and Bob is the admin.
        let (status, _) = body(
            app.call(
                Method::PATCH,
                &format!("/api/orgs/{org}/members/{}", bob.id),
                &ada.token,
                Some(json!({"role": "admin"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let (status, _) = body(
            app.call(
                Method::DELETE,
                &format!("/api/orgs/{org}/members/{}", ada.id),
                &ada.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}");
        let (status, _) = body(
            app.call(Method::GET, &format!("/api/orgs/{org}"), &ada.token, None)
                .await,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "left");
        let (_, details) = body(
            app.call(Method::GET, &format!("/api/orgs/{org}"), &bob.token, None)
                .await,
        )
        .await;
        assert_eq!(details["data"]["role"], "admin");
    }
}

/// Every error the organization calls answer, pinned (status, code, message, fields), on both databases.
#[tokio::test]
async fn organization_error_bodies_are_pinned() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada@example.com").await;
        let org = personal_org(&app, &ada).await;
        app.call(
            Method::POST,
            &format!("/api/orgs/{org}/members"),
            &ada.token,
            Some(json!({"email": "bob@example.com"})),
        )
        .await;
        let token = invite_token(&app, "bob@example.com");
        let bob = app.new_user("bob@example.com").await;
        app.call(
            Method::POST,
            &format!("/api/orgs/accept/{token}"),
            &bob.token,
            None,
        )
        .await;
        let eve = app.new_user("eve@example.com").await;
        let unknown = "00000000-0000-4000-8000-000000000000";

        let cases: Vec<(&str, Method, String, &str, Option<Value>)> = vec![
            ("anonymous", Method::GET, "/api/orgs".into(), "", None),
            (
                "create without a name",
                Method::POST,
                "/api/orgs".into(),
                &ada.token,
                Some(json!({})),
            ),
            (
                "create with a bad contact",
                Method::POST,
                "/api/orgs".into(),
                &ada.token,
                Some(json!({"name": "Acme", "contactEmail": "nope"})),
            ),
            (
                "a stranger reads",
                Method::GET,
                format!("/api/orgs/{org}"),
                &eve.token,
                None,
            ),
            (
                "an unknown organization",
                Method::GET,
                format!("/api/orgs/{unknown}"),
                &ada.token,
                None,
            ),
            (
                "not an id",
                Method::GET,
                "/api/orgs/not-an-id".into(),
                &ada.token,
                None,
            ),
            (
                "a member edits",
                Method::PUT,
                format!("/api/orgs/{org}"),
                &bob.token,
                Some(json!({"name": "X", "profile": {"contactEmail": "x@y.test"}})),
            ),
            (
                "an update without contact",
                Method::PUT,
                format!("/api/orgs/{org}"),
                &ada.token,
                Some(json!({"name": "X"})),
            ),
            (
                "invite without an address",
                Method::POST,
                format!("/api/orgs/{org}/members"),
                &ada.token,
                Some(json!({"email": "nope"})),
            ),
            (
                "invite a member",
                Method::POST,
                format!("/api/orgs/{org}/members"),
                &ada.token,
                Some(json!({"email": "bob@example.com"})),
            ),
            (
                "own role",
                Method::PATCH,
                format!("/api/orgs/{org}/members/{}", ada.id),
                &ada.token,
                Some(json!({"role": "member"})),
            ),
            (
                "no role",
                Method::PATCH,
                format!("/api/orgs/{org}/members/{}", bob.id),
                &ada.token,
                Some(json!({})),
            ),
            (
                "an unknown member",
                Method::DELETE,
                format!("/api/orgs/{org}/members/{unknown}"),
                &ada.token,
                None,
            ),
            (
                "the only admin leaves",
                Method::DELETE,
                format!("/api/orgs/{org}/members/{}", ada.id),
                &ada.token,
                None,
            ),
            (
                "resend without an invitation",
                Method::POST,
                format!("/api/orgs/{org}/invites/resend"),
                &ada.token,
                Some(json!({"email": "nobody@example.com"})),
            ),
            (
                "a used invitation",
                Method::POST,
                format!("/api/orgs/accept/{token}"),
                &bob.token,
                None,
            ),
            (
                "an unknown invitation",
                Method::POST,
                "/api/orgs/accept/nope".into(),
                &bob.token,
                None,
            ),
            (
                "bad JSON",
                Method::POST,
                "/api/orgs".into(),
                &ada.token,
                Some(json!("text")),
            ),
        ];
        let mut answers = serde_json::Map::new();
        for (name, method, path, token, payload) in cases {
            let (status, body) = body(app.call(method, &path, token, payload).await).await;
            answers.insert(name.to_owned(), json!({"status": status.as_u16(), "body": body}));
        }
        crate::helpers::assert_snapshot("org_errors", &Value::Object(answers));
    }
}

#[tokio::test]
async fn invitation_emails_are_limited_and_each_refusal_is_a_429_saying_when_to_try_again() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada@example.com").await;
        let org = personal_org(&app, &ada).await;
        let invite = |email: String| {
            post(
                &app,
                &ada.token,
                format!("/api/orgs/{org}/members"),
                json!({"email": email}),
            )
        };
        let resend = |email: &str| {
            post(
                &app,
                &ada.token,
                format!("/api/orgs/{org}/invites/resend"),
                json!({"email": email}),
            )
        };
        let rescind = |email: String| {
            post(
                &app,
                &ada.token,
                format!("/api/orgs/{org}/invites/rescind"),
                json!({"email": email}),
            )
        };

        // A resend at most once per ten minutes, and five times per invitation.
        let (status, _) = body(invite("bob@example.com".into()).await).await;
        assert_eq!(status, StatusCode::CREATED);
        let (status, retry_after, refused) = limited(resend("bob@example.com").await).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{backend:?}: {refused}");
        assert_eq!(refused["code"], "RATE_LIMITED");
        assert_eq!(
            refused["error"],
            "This invitation was sent less than 10 minutes ago. Please wait before resending it."
        );
        assert!(matches!(retry_after, Some(1..=600)), "{retry_after:?}");
        for _ in 0..4 {
            age_invitations(&app, 10);
            let (status, resent) = body(resend("bob@example.com").await).await;
            assert_eq!(status, StatusCode::OK, "{backend:?}: {resent}");
        }
        // The fifth resend is the last one: six e-mails to one address in the hour stay within the
        // address's e-mail ceiling (20 an hour, shared with sign-in e-mails; the domain tests the refusal).
        age_invitations(&app, 10);
        let (status, resent) = body(resend("bob@example.com").await).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {resent}");
        assert_eq!(invitation_emails(&app, "bob@example.com"), 6);
        // Five resends, however far apart, are all one invitation gets.
        set_emails_sent(&app, "bob@example.com", 6);
        let (status, retry_after, refused) = limited(resend("bob@example.com").await).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{backend:?}: {refused}");
        assert!(
            refused["error"].as_str().unwrap().contains("resent 5 times"),
            "{refused}"
        );
        assert!(retry_after.is_some_and(|s| s > 6 * 24 * 3600), "{retry_after:?}");
        assert_eq!(invitation_emails(&app, "bob@example.com"), 6);
        let (status, _) = body(rescind("bob@example.com".into()).await).await;
        assert_eq!(status, StatusCode::OK);

        // At most 50 open invitations per organization.
        for n in 0..50 {
            let (status, answer) = body(invite(format!("first-{n}@example.com")).await).await;
            assert_eq!(status, StatusCode::CREATED, "{backend:?} {n}: {answer}");
        }
        let (status, retry_after, refused) = limited(invite("one-more@example.com".into()).await).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{backend:?}: {refused}");
        assert!(
            refused["error"].as_str().unwrap().contains("50 open invitations"),
            "{refused}"
        );
        assert!(retry_after.is_some_and(|s| s > 0), "{retry_after:?}");
        assert_eq!(invitation_emails(&app, "one-more@example.com"), 0);

        // At most 100 invitation e-mails per account per day (6 counted for bob and 50 so far).
        for n in 0..50 {
            let (status, _) = body(rescind(format!("first-{n}@example.com")).await).await;
            assert_eq!(status, StatusCode::OK);
        }
        for n in 0..44 {
            let (status, answer) = body(invite(format!("second-{n}@example.com")).await).await;
            assert_eq!(status, StatusCode::CREATED, "{backend:?} {n}: {answer}");
        }
        let (status, retry_after, refused) = limited(invite("too-many@example.com".into()).await).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{backend:?}: {refused}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .contains("100 invitation emails"),
            "{refused}"
        );
        assert!(retry_after.is_some_and(|s| s > 0), "{retry_after:?}");
        assert_eq!(invitation_emails(&app, "too-many@example.com"), 0);

        // Another admin invites the same address again and again (cancelling in between): the address's own
        // e-mail ceiling (20 an hour) stops it.
        let cy = app.new_user("cy@example.com").await;
        let cys = personal_org(&app, &cy).await;
        let mut refusal = None;
        for attempt in 0..25 {
            let response = app
                .call(
                    Method::POST,
                    &format!("/api/orgs/{cys}/members"),
                    &cy.token,
                    Some(json!({"email": "target@example.com"})),
                )
                .await;
            let (status, retry_after, answer) = limited(response).await;
            if status == StatusCode::TOO_MANY_REQUESTS {
                refusal = Some((attempt, retry_after, answer));
                break;
            }
            assert_eq!(status, StatusCode::CREATED, "{backend:?}: {answer}");
            let (status, _) = body(
                app.call(
                    Method::POST,
                    &format!("/api/orgs/{cys}/invites/rescind"),
                    &cy.token,
                    Some(json!({"email": "target@example.com"})),
                )
                .await,
            )
            .await;
            assert_eq!(status, StatusCode::OK);
        }
        let (attempt, retry_after, answer) = refusal.expect("the address's limit never refused");
        assert_eq!(attempt, 20, "{backend:?}");
        assert!(
            answer["error"].as_str().unwrap().contains("this address"),
            "{answer}"
        );
        assert!(retry_after.is_some_and(|s| s > 0));
        assert_eq!(invitation_emails(&app, "target@example.com"), 20);
    }
}

/// `GET /api/invites/{token}` without a bearer: status and body.
async fn preview(app: &TestApp, token: &str) -> (StatusCode, Option<u64>, Value) {
    limited(
        app.send(app.client.get(app.url(&format!("/api/invites/{token}"))))
            .await,
    )
    .await
}

#[tokio::test]
async fn an_invitation_link_is_previewed_before_sign_in_without_accepting_it() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        let ada = app.new_user("ada@example.com").await;
        let (status, created) = body(
            app.call(
                Method::POST,
                "/api/orgs",
                &ada.token,
                Some(json!({"name": "Acme Optics", "contactEmail": "team@acme.test"})),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {created}");
        let org = created["data"]["id"].as_str().unwrap().to_owned();
        let (status, invited) = body(
            post(
                &app,
                &ada.token,
                format!("/api/orgs/{org}/members"),
                json!({"email": "Bob.Builder@Example.com", "role": "admin"}),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {invited}");
        let token = invite_token(&app, "bob.builder@example.com");

        // Open: the organization's name, who invited, a hint of the address; nothing else (no role, no
        // address, no ids), and no sign-in needed.
        let (status, _, open) = preview(&app, &token).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {open}");
        let data = open["data"].as_object().unwrap();
        let mut keys: Vec<&str> = data.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["emailHint", "expiresAt", "inviter", "organizationName", "status"],
            "{backend:?}"
        );
        assert_eq!(data["organizationName"], "Acme Optics");
        assert_eq!(data["inviter"], "ada@example.com");
        assert_eq!(data["emailHint"], "b\u{2022}\u{2022}\u{2022}@example.com");
        assert_eq!(data["status"], "open");
        assert!(!open.to_string().contains("builder"), "{open}");
        // Looking did not accept it: it is still pending.
        let (_, details) = body(
            app.call(Method::GET, &format!("/api/orgs/{org}"), &ada.token, None)
                .await,
        )
        .await;
        assert_eq!(
            details["data"]["pendingInvites"].as_array().map(Vec::len),
            Some(1),
            "{backend:?}: {details}"
        );

        // Unknown and malformed tokens: 404, saying the link is invalid.
        for unknown in ["not-a-token", &"A".repeat(43)] {
            let (status, _, refused) = preview(&app, unknown).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{backend:?}: {refused}");
            assert_eq!(refused["code"], "NOT_FOUND");
            assert_eq!(
                refused["error"],
                "This invitation is invalid or has been cancelled"
            );
        }

        // Seven days later it has expired (still previewable, to say so).
        age_invitations(&app, 7 * 24 * 60 + 1);
        let (status, _, expired) = preview(&app, &token).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {expired}");
        assert_eq!(expired["data"]["status"], "expired");

        // A fresh invitation, accepted: its link says it was used.
        let carol = app.new_user("carol@example.com").await;
        let (status, _) = body(
            post(
                &app,
                &ada.token,
                format!("/api/orgs/{org}/members"),
                json!({"email": "carol@example.com"}),
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}");
        let carols = invite_token(&app, "carol@example.com");
        let (status, joined) = body(
            app.call(
                Method::POST,
                &format!("/api/orgs/accept/{carols}"),
                &carol.token,
                None,
            )
            .await,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {joined}");
        let (status, _, used) = preview(&app, &carols).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {used}");
        assert_eq!(used["data"]["status"], "accepted");
    }
}

#[tokio::test]
async fn looking_up_invitation_links_is_limited_per_client_address() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        // Every lookup counts, found or not: 30 in 15 minutes, then 429 with Retry-After.
        for n in 0..30 {
            let (status, _, answer) = preview(&app, &format!("guess-{n}")).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{backend:?} #{n}: {answer}");
        }
        let (status, retry_after, refused) = preview(&app, "guess-30").await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{backend:?}: {refused}");
        assert_eq!(refused["code"], "RATE_LIMITED");
        assert_eq!(
            refused["error"],
            "Too many invitation links were checked from your network. Please try again later."
        );
        // A sliding window: lookups made early in a window still weigh on the next one, so the wait can
        // reach past the window's end (at most two windows).
        assert!(
            retry_after.is_some_and(|secs| secs > 0 && secs <= 2 * 15 * 60),
            "{backend:?}: Retry-After {retry_after:?}"
        );
    }
}
