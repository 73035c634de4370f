//! Every cap holds under a burst (issue 47, finding 6): fifty requests at once against a cap, then a count
//! of what exists. Webhook endpoints per organization, open invitations per organization, resends per
//! invitation, factors and passkeys per account; SQLite and PostgreSQL.

use crate::helpers::TestApp;
use crate::org_fixtures::{BACKENDS, create_org, send, sign_up, spawn_allowing_private};
use adapter_db::Db;
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};

/// Sends every request of `requests` at once and answers their statuses and bodies.
async fn at_once<F>(requests: impl Iterator<Item = F>) -> Vec<(u16, Value)>
where
    F: std::future::Future<Output = (u16, Value)>,
{
    futures::future::join_all(requests).await
}

fn count_where(app: &TestApp, count: impl FnOnce(&mut adapter_db::DbConnection) -> i64) -> i64 {
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    count(&mut conn)
}

#[tokio::test]
async fn fifty_endpoint_creations_at_once_after_seventeen_leave_twenty() {
    for backend in BACKENDS {
        let app = spawn_allowing_private(backend).await;
        let admin = sign_up(&app, "ada@example.com").await;
        let org = create_org(&app, &admin, "Burst").await;
        let create = |n: usize| {
            let (app, admin, org) = (&app, &admin, &org);
            async move {
                send(
                    app,
                    Method::POST,
                    &format!("/api/orgs/{org}/webhooks"),
                    admin,
                    json!({"url": format!("http://127.0.0.1:9/hook-{n}"), "events": []}),
                )
                .await
            }
        };
        for n in 0..17 {
            let (status, body) = create(n).await;
            assert_eq!(status, 201, "{backend:?}: {body}");
        }
        let answers = at_once((17..67).map(create)).await;
        let created = answers.iter().filter(|(status, _)| *status == 201).count();
        let (status, listed) = send(
            &app,
            Method::GET,
            &format!("/api/orgs/{org}/webhooks"),
            &admin,
            Value::Null,
        )
        .await;
        assert_eq!(status, 200, "{listed}");
        let stored = listed["endpoints"].as_array().unwrap().len();
        assert_eq!((created, stored), (3, 20), "{backend:?}: {answers:?}");
    }
}

#[tokio::test]
async fn fifty_invitations_at_once_after_forty_five_leave_fifty_open() {
    for backend in BACKENDS {
        let app = spawn_allowing_private(backend).await;
        let admin = sign_up(&app, "ada@example.com").await;
        let org = create_org(&app, &admin, "Burst").await;
        let invite = |n: usize| {
            let (app, admin, org) = (&app, &admin, &org);
            async move {
                send(
                    app,
                    Method::POST,
                    &format!("/api/orgs/{org}/members"),
                    admin,
                    json!({"email": format!("guest-{n}@example.com")}),
                )
                .await
            }
        };
        for n in 0..45 {
            let (status, body) = invite(n).await;
            assert_eq!(status, 201, "{backend:?}: {body}");
        }
        let answers = at_once((45..95).map(invite)).await;
        let sent = answers.iter().filter(|(status, _)| *status == 201).count();
        let open = count_where(&app, |conn| {
            use adapter_db::schema::org_invites::dsl;
            dsl::org_invites
                .filter(dsl::accepted_at.is_null())
                .filter(dsl::cancelled_at.is_null())
                .count()
                .get_result(conn)
                .unwrap()
        });
        assert_eq!((sent, open), (5, 50), "{backend:?}: {answers:?}");
    }
}

#[tokio::test]
async fn fifty_resends_at_once_send_one_e_mail() {
    for backend in BACKENDS {
        let app = spawn_allowing_private(backend).await;
        let admin = sign_up(&app, "ada@example.com").await;
        let org = create_org(&app, &admin, "Burst").await;
        let (status, body) = send(
            &app,
            Method::POST,
            &format!("/api/orgs/{org}/members"),
            &admin,
            json!({"email": "bob@example.com"}),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        // Four resends used, the last an hour ago: one more may go, once.
        count_where(&app, |conn| {
            use adapter_db::schema::org_invites::dsl;
            diesel::update(dsl::org_invites)
                .set((
                    dsl::email_sent_count.eq(5),
                    dsl::expires_at.eq(dsl::expires_at - 60 * 60_000),
                ))
                .execute(conn)
                .unwrap() as i64
        });
        let resend = |_| {
            let (app, admin, org) = (&app, &admin, &org);
            async move {
                send(
                    app,
                    Method::POST,
                    &format!("/api/orgs/{org}/invites/resend"),
                    admin,
                    json!({"email": "bob@example.com"}),
                )
                .await
            }
        };
        let answers = at_once((0..50).map(resend)).await;
        let resent = answers.iter().filter(|(status, _)| *status == 200).count();
        let (emails, sent_count) = {
            let emails = count_where(&app, |conn| {
                use adapter_db::schema::email_outbox::dsl;
                dsl::email_outbox
                    .filter(dsl::recipient.eq("bob@example.com"))
                    .filter(dsl::kind.eq("org_invite"))
                    .count()
                    .get_result(conn)
                    .unwrap()
            });
            let sent_count = count_where(&app, |conn| {
                use adapter_db::schema::org_invites::dsl;
                let count: i32 = dsl::org_invites
                    .select(dsl::email_sent_count)
                    .first(conn)
                    .unwrap();
                i64::from(count)
            });
            (emails, sent_count)
        };
        assert_eq!(
            (resent, emails, sent_count),
            (1, 2, 6),
            "{backend:?}: {answers:?}"
        );
        assert!(
            answers.iter().all(|(status, _)| *status == 200 || *status == 429),
            "{backend:?}: {answers:?}"
        );
    }
}

/// `POST /auth/v1{path}` as the session of `access`.
async fn auth_post(app: &TestApp, access: &str, path: &str, body: Value) -> (u16, Value) {
    let response = app
        .client
        .post(app.url(&format!("/auth/v1{path}")))
        .header("apikey", "built-in")
        .bearer_auth(access)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn fifty_factor_enrollments_at_once_leave_ten_factors() {
    for backend in BACKENDS {
        let app = spawn_allowing_private(backend).await;
        app.sign_up("ada@example.com").await;
        let session = app.sign_in("ada@example.com").await;
        let access = session["access_token"].as_str().unwrap().to_owned();
        let enroll = |n: usize| {
            let (app, access) = (&app, &access);
            async move {
                auth_post(
                    app,
                    access,
                    "/factors",
                    json!({"factor_type": "totp", "friendly_name": format!("Phone {n}")}),
                )
                .await
            }
        };
        let answers = at_once((0..50).map(enroll)).await;
        let enrolled = answers.iter().filter(|(status, _)| *status == 200).count();
        let stored = count_where(&app, |conn| {
            use adapter_db::schema::factors::dsl;
            dsl::factors.count().get_result(conn).unwrap()
        });
        let max = domain::identity::factors::MAX_FACTORS;
        assert_eq!((enrolled, stored), (max, max as i64), "{backend:?}: {answers:?}");
    }
}

#[tokio::test]
async fn fifty_passkey_registrations_at_once_leave_ten_passkeys() {
    use adapter_identity::webauthn::soft::SoftAuthenticator;
    for backend in BACKENDS {
        let app = crate::passkeys::spawn(backend).await;
        app.sign_up("ada@example.com").await;
        let session = app.sign_in("ada@example.com").await;
        let access = session["access_token"].as_str().unwrap().to_owned();
        let mut authenticator = SoftAuthenticator::new("http://localhost:8080");
        // Fifty ceremonies started one after the other (the account has no passkey yet), answered at once.
        let mut answers = Vec::new();
        for _ in 0..50 {
            let (status, options) =
                crate::passkeys::post(&app, "/passkeys/registration/options", Some(&access), json!({})).await;
            assert_eq!(status, 200, "{backend:?}: {options}");
            let credential = authenticator.register(&options["options"]);
            answers.push(json!({"challenge_id": options["challenge_id"], "credential": credential}));
        }
        let verified = at_once(answers.into_iter().map(|body| {
            let (app, access) = (&app, &access);
            async move {
                let (status, body) =
                    crate::passkeys::post(app, "/passkeys/registration/verify", Some(access), body).await;
                (status.as_u16(), body)
            }
        }))
        .await;
        let registered = verified.iter().filter(|(status, _)| *status == 200).count();
        let stored = count_where(&app, |conn| {
            use adapter_db::schema::passkeys::dsl;
            dsl::passkeys.count().get_result(conn).unwrap()
        });
        let max = domain::identity::passkeys::MAX_PASSKEYS;
        assert!(
            registered <= max && stored == registered as i64,
            "{backend:?}: {registered} registered, {stored} stored: {verified:?}"
        );
        assert!(registered > 0, "{backend:?}: {verified:?}");
    }
}
