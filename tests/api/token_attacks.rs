//! Personal access tokens (`dpt_…`) attacked from outside, on both databases: every way in that was tried
//! stays here, whether the server refused it already or was fixed for it. Another account guessing,
//! listing or revoking someone's tokens; header, path, method and bearer tricks; a platform admin's token
//! on staff routes; an admin lowered to member; a squatter's token after the mailbox owner proves the
//! address; what the audit export and the e-mail say; the cap on tokens; a token in every spelling of the
//! scheme and white space on the account, session, second-factor, passkey and token routes; a session
//! token with `dpt_` inside it, and a token sent as a cookie, a query parameter or another header; a token
//! that expires while in use, one revoked right after working, and another account's tokens.

use crate::helpers::TestApp;
use crate::org_fixtures::{BACKENDS, User, add_member, call, create_org, sign_up, spawn};
use adapter_db::Db;
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};

/// Makes a token as `user` that must succeed: the token and its id.
async fn token_for(app: &TestApp, user: &User, org: Option<&str>, scopes: &[&str]) -> (String, String) {
    let body = json!({"name": format!("CI {}", scopes.join(" ")), "orgId": org, "scopes": scopes});
    let (status, made) = call(
        app,
        Method::POST,
        "/api/dev/tokens",
        Some(&user.token),
        None,
        Some(&body),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    (
        made["token"].as_str().unwrap().to_owned(),
        made["id"].as_str().unwrap().to_owned(),
    )
}

fn code(body: &Value) -> &str {
    body["code"].as_str().unwrap_or_default()
}

fn db(app: &TestApp) -> Db {
    Db::connect(&app.database_url, 1).unwrap()
}

/// A raw request (no contract check): status and body text.
async fn raw(app: &TestApp, method: Method, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut request = app.client.request(method, app.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    // A request the server cuts off (a header too large) answers 0.
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.text().await.unwrap_or_default())
        }
        Err(error) => (0, error.to_string()),
    }
}

#[tokio::test]
async fn another_account_or_another_orgs_admin_can_neither_see_revoke_nor_probe_a_token() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let eve = sign_up(&app, "eve@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let eves = create_org(&app, &eve, "Eve's").await;
        let (token, id) = token_for(&app, &ada, None, &["apps:read"]).await;
        let (_, bound_id) = token_for(&app, &ada, Some(&acme), &["apps:read"]).await;

        // Eve's own list holds none of Ada's.
        let (_, listed) = call(&app, Method::GET, "/api/dev/tokens", Some(&eve.token), None, None).await;
        assert_eq!(listed["tokens"], json!([]), "{listed}");
        // Eve, admin of her own organization, cannot list or revoke Ada's through it, nor through Acme's.
        let (_, listed) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{eves}/tokens"),
            Some(&eve.token),
            None,
            None,
        )
        .await;
        assert_eq!(listed["tokens"], json!([]), "{listed}");
        let (status, _) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}/tokens"),
            Some(&eve.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 404, "not a member of Acme");
        // Eve forges x-org-id to Acme on her own organization's route: refused.
        let (status, _) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{eves}/tokens"),
            Some(&eve.token),
            Some(&acme),
            None,
        )
        .await;
        assert_eq!(status, 403);

        // Every probe answers the same 404 whether the id exists, is revoked, or is nonsense.
        let unknown = uuid::Uuid::new_v4().to_string();
        let mut answers = Vec::new();
        for probe in [
            &id,
            &bound_id,
            &unknown,
            &id.to_uppercase(),
            &"..%2F..%2Fdev%2Ftokens".to_owned(),
            &"not-a-uuid".to_owned(),
        ] {
            for path in [
                format!("/api/dev/tokens/{probe}"),
                format!("/api/orgs/{eves}/tokens/{probe}"),
                format!("/api/orgs/{acme}/tokens/{probe}"),
            ] {
                let (status, body) = call(&app, Method::DELETE, &path, Some(&eve.token), None, None).await;
                assert_eq!(status, 404, "{path}: {body}");
                answers.push((path.contains(&eves), path.contains(&acme), body["error"].clone()));
            }
        }
        // The message does not depend on whether the token exists.
        for (in_eves, in_acme, message) in &answers {
            let first = answers
                .iter()
                .find(|(e, a, _)| e == in_eves && a == in_acme)
                .unwrap();
            assert_eq!(&first.2, message, "{backend:?}");
        }
        // Ada's token still works: nothing of Eve's touched it.
        let (status, _) = call(
            &app,
            Method::GET,
            "/api/dev/apps",
            Some(&token),
            Some(&acme),
            None,
        )
        .await;
        assert_eq!(status, 200, "{backend:?}");
        // Ada revokes it; Eve's probes still say 404, never 409 (which would tell it exists).
        let (status, _) = call(
            &app,
            Method::DELETE,
            &format!("/api/dev/tokens/{id}"),
            Some(&ada.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200);
        for path in [
            format!("/api/dev/tokens/{id}"),
            format!("/api/orgs/{eves}/tokens/{id}"),
        ] {
            let (status, _) = call(&app, Method::DELETE, &path, Some(&eve.token), None, None).await;
            assert_eq!(status, 404, "{backend:?} {path}");
        }
    }
}

#[tokio::test]
async fn header_path_and_method_tricks_do_not_widen_a_token() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let other = create_org(&app, &ada, "Other").await;
        let (token, id) = token_for(
            &app,
            &ada,
            Some(&acme),
            &["apps:read", "apps:write", "apps:publish", "apps:keys"],
        )
        .await;
        let bearer = format!("Bearer {token}");
        let auth = |extra: &[(&'static str, String)]| {
            let mut headers = vec![("authorization", bearer.clone())];
            headers.extend(extra.iter().cloned());
            headers
        };
        let run = |method: Method, path: String, headers: Vec<(&'static str, String)>| {
            let app = &app;
            async move {
                let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
                raw(app, method, &path, &borrowed).await
            }
        };

        // x-org-id: missing, empty, malformed, another organization of the owner (any spelling).
        let (status, body) = run(Method::GET, "/api/dev/apps".into(), auth(&[])).await;
        assert_eq!(status, 400, "{body}");
        let (status, _) = run(
            Method::GET,
            "/api/dev/apps".into(),
            auth(&[("x-org-id", " ".into())]),
        )
        .await;
        assert_eq!(status, 400);
        let (status, _) = run(
            Method::GET,
            "/api/dev/apps".into(),
            auth(&[("x-org-id", "../admin".into())]),
        )
        .await;
        assert_eq!(status, 400);
        for spelling in [
            other.clone(),
            other.to_uppercase(),
            format!(" {other} "),
            format!("{{{other}}}"),
            format!("urn:uuid:{other}"),
        ] {
            for header in ["x-org-id", "X-Org-Id", "X-ORG-ID"] {
                let (status, body) = run(
                    Method::GET,
                    "/api/dev/apps".into(),
                    auth(&[(header, spelling.clone())]),
                )
                .await;
                assert!(
                    status == 403 || status == 400,
                    "{header}: {spelling}: {status} {body}"
                );
            }
        }
        // Path names one organization, header another: refused either way round.
        let (status, _) = run(
            Method::GET,
            format!("/api/orgs/{other}"),
            auth(&[("x-org-id", acme.clone())]),
        )
        .await;
        assert_eq!(status, 403);
        let (status, _) = run(
            Method::GET,
            format!("/api/orgs/{acme}"),
            auth(&[("x-org-id", other.clone())]),
        )
        .await;
        assert_eq!(status, 403);
        let (status, _) = run(
            Method::GET,
            format!("/api/orgs/{}", other.to_uppercase()),
            auth(&[]),
        )
        .await;
        assert!(
            status == 403 || status == 404,
            "the path's organization in capitals: {status}"
        );

        // Token management, members, staff and sessions under other spellings: never a 2xx.
        for (method, path) in [
            (Method::GET, "/api/dev/tokens/".to_owned()),
            (Method::GET, "/api/dev//tokens".to_owned()),
            (Method::GET, "/api/dev/%74okens".to_owned()),
            (Method::GET, "/api/dev/apps/%2e%2e/tokens".to_owned()),
            (Method::GET, "/api/dev/apps/../tokens".to_owned()),
            (Method::GET, "/api/dev/apps/..%2Ftokens".to_owned()),
            (Method::DELETE, format!("/api/dev/tokens/{id}")),
            (Method::DELETE, format!("/api/dev/tokens/{id}/")),
            (Method::DELETE, format!("/api/orgs/{acme}/tokens/{id}")),
            (Method::GET, format!("/api/orgs/{acme}/tokens")),
            (Method::GET, format!("/api/orgs/{acme}/audit-log")),
            (Method::GET, format!("/api/orgs/{acme}/audit-log?format=csv")),
            (Method::GET, "/api/admin/check".to_owned()),
            (Method::GET, "/api/admin/../dev/tokens".to_owned()),
            (Method::GET, "/api/ADMIN/check".to_owned()),
            (Method::POST, "/api/dev/apps/com.acme.x/move-org".to_owned()),
            (Method::PUT, "/api/dev/auth/profile".to_owned()),
            (Method::GET, "/api/dev/auth/sessions".to_owned()),
            (Method::HEAD, "/api/dev/tokens".to_owned()),
            (Method::OPTIONS, "/api/dev/tokens".to_owned()),
        ] {
            let (status, body) = run(method.clone(), path.clone(), auth(&[("x-org-id", acme.clone())])).await;
            let harmless_preflight =
                method == Method::OPTIONS && !body.contains("dpt_") && !body.contains("\"tokens\"");
            assert!(
                !(200..300).contains(&status) || harmless_preflight,
                "{backend:?} {method} {path}: {status} {body}"
            );
            assert!(status != 500, "{method} {path}: {body}");
        }
        // Method override headers are not honoured: a GET stays a GET (a read), never a DELETE or POST.
        for header in ["x-http-method-override", "x-http-method", "x-method-override"] {
            let (status, body) = run(
                Method::GET,
                "/api/dev/tokens".into(),
                auth(&[(header, "POST".into()), ("x-org-id", acme.clone())]),
            )
            .await;
            assert_eq!(status, 403, "{header}: {body}");
            let (status, _) = run(
                Method::POST,
                format!("/api/orgs/{acme}/tokens"),
                auth(&[(header, "GET".into())]),
            )
            .await;
            assert!(!(200..300).contains(&status), "{header}");
        }
        // The token is still Ada's and active.
        let (_, listed) = call(&app, Method::GET, "/api/dev/tokens", Some(&ada.token), None, None).await;
        assert_eq!(listed["tokens"][0]["status"], "active", "{backend:?}: {listed}");
        // The identity service and the exchange take no access token.
        let (status, _) = run(Method::POST, "/api/auth/exchange-token".into(), vec![]).await;
        assert!(status >= 400);
        let exchanged = app
            .client
            .post(app.url("/api/auth/exchange-token"))
            .json(&json!({"supabaseToken": token}))
            .send()
            .await
            .unwrap();
        assert_eq!(exchanged.status(), 401, "{backend:?}");
        for path in ["/auth/v1/user", "/auth/v1/factors", "/auth/v1/logout"] {
            let method = if path.ends_with("logout") {
                Method::POST
            } else {
                Method::GET
            };
            let (status, _) = run(method, path.into(), auth(&[("apikey", "built-in".into())])).await;
            assert!((400..500).contains(&status), "{path}: {status}");
        }
    }
}

#[tokio::test]
async fn bearer_variants_and_forged_checksums_learn_nothing() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let (token, id) = token_for(&app, &ada, Some(&acme), &["apps:read"]).await;
        let list = |authorization: String| {
            let (app, acme) = (&app, acme.clone());
            async move {
                let (status, body) = raw(
                    app,
                    Method::GET,
                    "/api/dev/apps",
                    &[("authorization", &authorization), ("x-org-id", &acme)],
                )
                .await;
                (
                    status,
                    serde_json::from_str::<Value>(&body).unwrap_or(Value::String(body)),
                )
            }
        };
        // The scheme's case and surrounding spaces do not matter; the token's own case does.
        for ok in [
            format!("Bearer {token}"),
            format!("bearer {token}"),
            format!("BEARER   {token}  "),
        ] {
            assert_eq!(list(ok.clone()).await.0, 200, "{ok}");
        }
        for refused in [
            format!("Bearer {}", token.to_uppercase()),
            format!("Bearer {}", token.replacen("dpt_", "DPT_", 1)),
            format!("Bearer {}", token.to_lowercase()),
            format!("Bearer\t{token}"),
            format!("Basic {token}"),
            format!("Token {token}"),
            format!("Bearer {token}{token}"),
            format!("Bearer {}", &token[..token.len() - 1]),
            format!("Bearer {token} extra"),
            format!("Bearer dpt_{}", "a".repeat(4000)),
            format!("Bearer {}", token.replace("dpt_", "dpt_ ")),
        ] {
            let (status, body) = list(refused.clone()).await;
            assert_eq!(status, 401, "{refused}: {body}");
        }
        // A very long header is refused without a 500. On a client of its own: a head over the server's
        // limit gets the HTTP server's bare 431 and its connection is cut while the client still writes,
        // which must not leave a broken connection in the pool the next requests use.
        for length in [20_000, 200_000] {
            let answer = reqwest::Client::new()
                .get(app.url("/api/dev/apps"))
                .header("authorization", format!("Bearer dpt_{}", "a".repeat(length)))
                .header("x-org-id", &acme)
                .send()
                .await;
            let status = answer.as_ref().map_or(0, |response| response.status().as_u16());
            assert!(
                status == 0 || (400..500).contains(&status),
                "{length}: {status} {answer:?}"
            );
        }

        // A forged token with a valid checksum: the real id with a wrong secret answers exactly as an
        // unknown id, and as a revoked token's id with a wrong secret (nothing tells the id exists).
        let forge = |id: uuid::Uuid, secret: &str| domain::tokens::format::write(id, secret);
        let real_id: uuid::Uuid = id.parse().unwrap();
        let wrong_secret = "A".repeat(32);
        let with_real_id = list(format!("Bearer {}", forge(real_id, &wrong_secret))).await;
        let with_unknown_id = list(format!("Bearer {}", forge(uuid::Uuid::new_v4(), &wrong_secret))).await;
        let answer = |(status, body): &(u16, Value)| (*status, body["error"].clone(), body["code"].clone());
        assert_eq!(with_real_id.0, 401);
        assert_eq!(answer(&with_real_id), answer(&with_unknown_id), "{backend:?}");
        assert!(
            with_real_id.1["error"].as_str().unwrap().contains("not known"),
            "{with_real_id:?}"
        );
        let (status, _) = call(
            &app,
            Method::DELETE,
            &format!("/api/dev/tokens/{id}"),
            Some(&ada.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200);
        let after_revocation = list(format!("Bearer {}", forge(real_id, &wrong_secret))).await;
        assert_eq!(
            answer(&after_revocation),
            answer(&with_unknown_id),
            "a wrong secret never hears 'revoked'"
        );
        let (status, body) = list(format!("Bearer {token}")).await;
        assert_eq!(status, 401);
        assert!(body["error"].as_str().unwrap().contains("revoked"), "{body}");
    }
}

#[tokio::test]
async fn a_platform_admins_token_carries_no_role_and_an_admin_lowered_to_member_acts_as_a_member() {
    for backend in BACKENDS {
        let app = crate::helpers::spawn_app_with(
            backend,
            &[
                ("PORTAL_PUBLIC_URL", crate::org_fixtures::PUBLIC_URL),
                ("PORTAL_STAFF_MFA", "optional"),
            ],
        )
        .await;
        let boss = sign_up(&app, "boss@example.com").await;
        {
            use adapter_db::schema::platform_admins::dsl;
            diesel::insert_into(dsl::platform_admins)
                .values((
                    dsl::id.eq(uuid::Uuid::new_v4().to_string()),
                    dsl::email.eq("boss@example.com"),
                    dsl::user_id.eq(Some(boss.id.clone())),
                    dsl::role.eq("admin"),
                    dsl::added_at.eq(chrono::Utc::now().timestamp_millis()),
                ))
                .execute(&mut *db(&app).connection().unwrap())
                .unwrap();
        }
        let (_, me) = call(
            &app,
            Method::GET,
            "/api/dev/auth/me",
            Some(&boss.token),
            None,
            None,
        )
        .await;
        assert_eq!(me["platformRole"], "admin", "the session carries the role: {me}");
        let (token, _) = token_for(
            &app,
            &boss,
            None,
            &["apps:read", "apps:write", "apps:publish", "apps:keys"],
        )
        .await;
        let (status, me) = call(&app, Method::GET, "/api/dev/auth/me", Some(&token), None, None).await;
        assert_eq!(status, 200);
        assert_eq!(
            (me["isAdmin"].clone(), me["platformRole"].clone()),
            (json!(false), Value::Null),
            "{me}"
        );
        for (method, path) in [
            (Method::GET, "/api/admin/check"),
            (Method::GET, "/api/admin/apps/submitted"),
            (Method::GET, "/api/app-uptime/status"),
        ] {
            let (status, body) = call(&app, method.clone(), path, Some(&token), None, None).await;
            assert_eq!(
                (status, code(&body)),
                (403, "TOKEN_NOT_ALLOWED"),
                "{backend:?} {path}: {body}"
            );
        }

        // An admin's token, after its owner is lowered to member, answers as a member.
        let ada = sign_up(&app, "ada@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        add_member(&app, &ada, &acme, &boss, "admin").await;
        let (bosses, _) = token_for(&app, &boss, Some(&acme), &["apps:read"]).await;
        let (_, org) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}"),
            Some(&bosses),
            None,
            None,
        )
        .await;
        assert_eq!(org["data"]["role"], "admin", "{org}");
        let (status, body) = call(
            &app,
            Method::PATCH,
            &format!("/api/orgs/{acme}/members/{}", boss.id),
            Some(&ada.token),
            None,
            Some(&json!({"role": "member"})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let (status, org) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}"),
            Some(&bosses),
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, org["data"]["role"].clone()),
            (200, json!("member")),
            "{backend:?}: {org}"
        );
        for (method, path) in [
            (Method::GET, format!("/api/orgs/{acme}/audit-log")),
            (Method::GET, format!("/api/orgs/{acme}/tokens")),
            (Method::PATCH, format!("/api/orgs/{acme}/members/{}", boss.id)),
        ] {
            let (status, _) = call(
                &app,
                method,
                &path,
                Some(&bosses),
                None,
                Some(&json!({"role": "admin"})),
            )
            .await;
            assert_eq!(status, 403, "{path}");
        }
    }
}

#[tokio::test]
async fn a_squatters_token_dies_when_the_mailbox_owner_proves_the_address() {
    const OWNER: &str = "owner@example.com";
    for backend in BACKENDS {
        let app = spawn(backend).await;
        // Without SMTP the squatter's account is usable at once: a fresh sign-in makes a token.
        let squatter = sign_up(&app, OWNER).await;
        let org = create_org(&app, &squatter, "Planted").await;
        let (token, _) = token_for(&app, &squatter, None, &["apps:read", "apps:write"]).await;
        let (status, _) = call(&app, Method::GET, "/api/dev/apps", Some(&token), Some(&org), None).await;
        assert_eq!(status, 200);

        // The mailbox owner proves the address with an e-mailed code.
        let sent = app.auth_post("/otp", json!({"email": OWNER})).await;
        assert_eq!(sent.status(), 200);
        let (_, body) = app.last_email(OWNER);
        let verified = app
            .auth_post(
                "/verify",
                json!({"type": "email", "email": OWNER, "token": crate::identity::code_in(&body)}),
            )
            .await;
        assert_eq!(verified.status(), 200);

        // The squatter's core token is over, and so is the token planted before the proof.
        let (status, _) = call(
            &app,
            Method::GET,
            "/api/dev/auth/me",
            Some(&squatter.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 401);
        let (status, body) = call(&app, Method::GET, "/api/dev/apps", Some(&token), Some(&org), None).await;
        assert_eq!(
            status, 401,
            "{backend:?}: the squatter's access token still works: {body}"
        );
        let (status, _) = call(&app, Method::GET, "/api/dev/auth/me", Some(&token), None, None).await;
        assert_eq!(status, 401, "{backend:?}");
    }
}

#[tokio::test]
async fn the_audit_export_says_via_token_and_neither_it_nor_the_email_holds_a_secret() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let body = json!({"name": "=HYPERLINK(\"http://evil\")", "orgId": acme, "scopes": ["apps:write"]});
        let (status, made) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&ada.token),
            None,
            Some(&body),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        let token = made["token"].as_str().unwrap().to_owned();
        let registration = json!({
            "packageName": "com.acme.notes", "name": "Notes", "description": "Takes notes",
            "publicUrl": "https://notes.example.com", "logoURL": "https://cdn.example.com/logo.png",
        });
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/dev/apps/register",
            Some(&token),
            Some(&acme),
            Some(&registration),
        )
        .await;
        assert_eq!(status, 201, "{body}");

        let secret_part = &token[4..40];
        let (status, csv) = raw(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}/audit-log?format=csv"),
            &[("authorization", &format!("Bearer {}", ada.token))],
        )
        .await;
        assert_eq!(status, 200, "{csv}");
        assert!(!csv.contains(secret_part), "{csv}");
        let header = csv.lines().next().unwrap();
        assert!(
            header.contains("viaToken"),
            "{backend:?}: the CSV export names no token: {header}"
        );
        let registered = csv
            .lines()
            .find(|line| line.contains("app.created"))
            .expect("created");
        assert!(
            registered.contains("'=HYPERLINK"),
            "the name is escaped as text: {registered}"
        );
        assert!(!registered.contains(",\"=HYPERLINK"), "{registered}");
        let (_, json_log) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}/audit-log"),
            Some(&ada.token),
            None,
            None,
        )
        .await;
        assert!(!json_log.to_string().contains(secret_part));

        // The e-mail notice names the token, never its secret.
        let bodies: Vec<(String, String)> = {
            use adapter_db::schema::email_outbox::dsl;
            dsl::email_outbox
                .filter(dsl::recipient.eq("ada@example.com"))
                .select((dsl::subject, dsl::body))
                .load(&mut *db(&app).connection().unwrap())
                .unwrap()
        };
        let notice = bodies
            .iter()
            .find(|(subject, _)| subject.contains("access token"))
            .expect("the owner is told");
        assert!(
            !notice.1.contains(secret_part) && !notice.1.contains("dpt_"),
            "{}",
            notice.1
        );
        assert!(notice.1.contains("HYPERLINK"), "it names the token: {}", notice.1);
    }
}

#[tokio::test]
async fn no_more_than_fifty_active_tokens_and_revoked_ones_do_not_count() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let mut last = String::new();
        for _ in 0..50 {
            last = token_for(&app, &ada, None, &["apps:read"]).await.1;
        }
        let body = json!({"name": "one too many", "scopes": ["apps:read"]});
        let (status, refused) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&ada.token),
            None,
            Some(&body),
        )
        .await;
        assert_eq!(status, 400, "{backend:?}: {refused}");
        assert!(
            refused["fields"]["name"].as_str().unwrap().contains("50"),
            "{refused}"
        );
        let (status, _) = call(
            &app,
            Method::DELETE,
            &format!("/api/dev/tokens/{last}"),
            Some(&ada.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200);
        let (status, _) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&ada.token),
            None,
            Some(&body),
        )
        .await;
        assert_eq!(status, 201);
    }
}

/// A token under every spelling of the scheme and of the white space around it that still reads as the
/// same token (the scheme in any case, two spaces, a tab after the space, white space after the token):
/// each is the token, so each is refused where tokens are (never a 2xx), and on a token route each works.
fn spellings(token: &str) -> Vec<String> {
    vec![
        format!("Bearer {token}"),
        format!("bearer {token}"),
        format!("BEARER {token}"),
        format!("Bearer  {token}"),
        format!("Bearer \t{token}"),
        format!("Bearer {token}\t"),
        format!("Bearer {token} \t "),
        format!("\tBearer {token}"),
    ]
}

#[tokio::test]
async fn a_token_in_any_spelling_is_refused_on_every_account_and_session_route() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let eve = sign_up(&app, "eve@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let eves = create_org(&app, &eve, "Eve's").await;
        let every_scope = ["apps:read", "apps:write", "apps:publish", "apps:keys"];
        let (token, _) = token_for(&app, &ada, None, &every_scope).await;
        let (_, other_id) = token_for(&app, &ada, Some(&acme), &["apps:read"]).await;
        let (_, sessions) = call(
            &app,
            Method::GET,
            "/api/dev/auth/sessions",
            Some(&ada.token),
            None,
            None,
        )
        .await;
        let session_id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
        // Eve invites Ada: the invitation's link is Ada's to accept with a session, never with a token.
        let invitation = crate::org_fixtures::invite(&app, &eve, &eves, "ada@example.com", "member").await;

        // Every spelling is the token where tokens work.
        for authorization in spellings(&token) {
            let (status, body) = raw(
                &app,
                Method::GET,
                "/api/dev/auth/me",
                &[("authorization", &authorization)],
            )
            .await;
            assert_eq!(status, 200, "{backend:?} {authorization:?}: {body}");
        }

        let api_routes = [
            (Method::POST, "/api/dev/tokens".to_owned()),
            (Method::GET, "/api/dev/tokens".to_owned()),
            (Method::DELETE, format!("/api/dev/tokens/{other_id}")),
            (Method::GET, format!("/api/orgs/{acme}/tokens")),
            (Method::DELETE, format!("/api/orgs/{acme}/tokens/{other_id}")),
            (Method::GET, "/api/dev/auth/sessions".to_owned()),
            (Method::DELETE, format!("/api/dev/auth/sessions/{session_id}")),
            (Method::PUT, "/api/dev/auth/profile".to_owned()),
            (Method::POST, format!("/api/orgs/accept/{invitation}")),
            (Method::POST, format!("/api/orgs/{acme}/members")),
            (Method::PUT, format!("/api/orgs/{acme}/two-factor")),
            (Method::DELETE, format!("/api/orgs/{acme}")),
            (Method::POST, "/api/orgs".to_owned()),
        ];
        let body = json!({
            "name": "Escalated", "scopes": every_scope, "displayName": "Eve was here",
            "email": "eve@example.com", "role": "admin", "required": true,
        })
        .to_string();
        for authorization in spellings(&token) {
            for (method, path) in &api_routes {
                let response = app
                    .client
                    .request(method.clone(), app.url(path))
                    .header("authorization", &authorization)
                    .header("x-org-id", &acme)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                let status = response.status().as_u16();
                let answer: Value = response.json().await.unwrap_or(Value::Null);
                assert_eq!(
                    (status, code(&answer)),
                    (403, "TOKEN_NOT_ALLOWED"),
                    "{backend:?} {authorization:?} {method} {path}: {answer}"
                );
            }
            // The identity service's account, second-factor, passkey and sign-out routes know no token.
            for (method, path, payload) in [
                (Method::POST, "/auth/v1/logout".to_owned(), json!({})),
                (Method::GET, "/auth/v1/user".to_owned(), json!({})),
                (
                    Method::PUT,
                    "/auth/v1/user".to_owned(),
                    json!({"password": "a new passphrase of eve's 99"}),
                ),
                (
                    Method::POST,
                    "/auth/v1/factors".to_owned(),
                    json!({"factor_type": "totp"}),
                ),
                (
                    Method::GET,
                    "/auth/v1/factors/recovery-codes".to_owned(),
                    json!({}),
                ),
                (
                    Method::POST,
                    "/auth/v1/factors/recovery-codes".to_owned(),
                    json!({}),
                ),
                (
                    Method::POST,
                    format!("/auth/v1/factors/{}/challenge", uuid::Uuid::new_v4()),
                    json!({}),
                ),
                (
                    Method::DELETE,
                    format!("/auth/v1/factors/{}", uuid::Uuid::new_v4()),
                    json!({}),
                ),
                (Method::GET, "/auth/v1/passkeys".to_owned(), json!({})),
                (
                    Method::POST,
                    "/auth/v1/passkeys/registration/options".to_owned(),
                    json!({}),
                ),
                (
                    Method::DELETE,
                    format!("/auth/v1/passkeys/{}", uuid::Uuid::new_v4()),
                    json!({}),
                ),
            ] {
                let response = app
                    .client
                    .request(method.clone(), app.url(&path))
                    .header("authorization", &authorization)
                    .header("apikey", "built-in")
                    .json(&payload)
                    .send()
                    .await
                    .unwrap();
                let status = response.status().as_u16();
                assert!(
                    (401..=403).contains(&status),
                    "{backend:?} {authorization:?} {method} {path}: {status} {}",
                    response.text().await.unwrap_or_default()
                );
            }
            // Nor does the exchange, from the header or the body; nor the refresh grant.
            let exchanged = app
                .client
                .post(app.url("/api/auth/exchange-token"))
                .header("authorization", &authorization)
                .json(&json!({"supabaseToken": token}))
                .send()
                .await
                .unwrap();
            assert_eq!(exchanged.status(), 401, "{backend:?} {authorization:?}");
            let refreshed = app
                .client
                .post(app.url("/auth/v1/token?grant_type=refresh_token"))
                .header("apikey", "built-in")
                .header("authorization", &authorization)
                .json(&json!({"refresh_token": token}))
                .send()
                .await
                .unwrap();
            assert!(
                (400..500).contains(&refreshed.status().as_u16()),
                "{backend:?}: {}",
                refreshed.status()
            );
        }

        // Nothing changed: both tokens active, the session alive and alone, no membership in Eve's
        // organization, the same password, no second factor or passkey, the organizations all there.
        let (_, listed) = call(&app, Method::GET, "/api/dev/tokens", Some(&ada.token), None, None).await;
        let statuses: Vec<&str> = listed["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["active", "active"], "{backend:?}: {listed}");
        let (status, sessions) = call(
            &app,
            Method::GET,
            "/api/dev/auth/sessions",
            Some(&ada.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: the session was not signed out");
        assert_eq!(sessions["sessions"].as_array().unwrap().len(), 1, "{sessions}");
        let (_, orgs) = call(&app, Method::GET, "/api/orgs", Some(&ada.token), None, None).await;
        let names: Vec<&str> = orgs["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        assert!(
            !names.contains(&"Eve's") && names.contains(&"Acme"),
            "{backend:?}: {orgs}"
        );
        let (_, acme_read) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}"),
            Some(&ada.token),
            None,
            None,
        )
        .await;
        assert_eq!(acme_read["data"]["requireTwoFactor"], false, "{acme_read}");
        assert_eq!(
            acme_read["data"]["members"].as_array().unwrap().len(),
            1,
            "{acme_read}"
        );
        crate::org_fixtures::sign_in(&app, "ada@example.com").await;
        let mut conn = db(&app).connection().unwrap();
        let factors: i64 = {
            use adapter_db::schema::factors::dsl;
            dsl::factors
                .filter(dsl::user_id.eq(&ada.id))
                .count()
                .get_result(&mut *conn)
                .unwrap()
        };
        let passkeys: i64 = {
            use adapter_db::schema::passkeys::dsl;
            dsl::passkeys
                .filter(dsl::user_id.eq(&ada.id))
                .count()
                .get_result(&mut *conn)
                .unwrap()
        };
        assert_eq!((factors, passkeys), (0, 0), "{backend:?}");
    }
}

#[tokio::test]
async fn a_session_token_with_dpt_inside_a_cookie_or_a_query_is_no_token() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let (token, _) = token_for(&app, &ada, Some(&acme), &["apps:read"]).await;
        let session = ada.token.clone();
        let parts: Vec<&str> = session.split('.').collect();
        assert_eq!(parts.len(), 3, "the session is a JWT: {session}");
        // The token's own text inside a session's, or a session's behind the prefix.
        let forged = [
            format!("{session}{token}"),
            format!("{session}.{token}"),
            format!("{}.{}.{token}", parts[0], parts[1]),
            format!("{}.{token}.{}", parts[0], parts[2]),
            format!("{token}.{}.{}", parts[1], parts[2]),
            format!("dpt_{session}"),
            format!("{token}{session}"),
            format!(" {session}dpt_"),
        ];
        for bearer in &forged {
            for (method, path) in [
                (Method::GET, "/api/dev/auth/me".to_owned()),
                (Method::GET, "/api/dev/apps".to_owned()),
                (Method::GET, format!("/api/orgs/{acme}")),
                (Method::POST, "/api/dev/tokens".to_owned()),
                (Method::GET, "/api/dev/auth/sessions".to_owned()),
            ] {
                let (status, body) = raw(
                    &app,
                    method.clone(),
                    &path,
                    &[
                        ("authorization", &format!("Bearer {bearer}")),
                        ("x-org-id", &acme),
                    ],
                )
                .await;
                assert!(
                    status == 401 || (status == 403 && body.contains("TOKEN_NOT_ALLOWED")),
                    "{backend:?} {method} {path} with {bearer}: {status} {body}"
                );
            }
        }
        // A token where no bearer is read: a cookie, a query parameter, another header.
        for headers in [
            vec![("cookie", format!("access_token={token}"))],
            vec![("cookie", format!("sb-access-token={token}; token={token}"))],
            vec![("cookie", format!("authorization=Bearer {token}"))],
            vec![("x-access-token", token.clone())],
            vec![("apikey", token.clone())],
            vec![("proxy-authorization", format!("Bearer {token}"))],
        ] {
            let mut all = headers.clone();
            all.push(("x-org-id", acme.clone()));
            let borrowed: Vec<(&str, &str)> = all.iter().map(|(n, v)| (*n, v.as_str())).collect();
            for path in [
                "/api/dev/apps".to_owned(),
                "/api/dev/auth/me".to_owned(),
                format!("/api/orgs/{acme}"),
            ] {
                let (status, body) = raw(&app, Method::GET, &path, &borrowed).await;
                assert_eq!(status, 401, "{backend:?} {path} {headers:?}: {body}");
            }
        }
        for query in [
            format!("access_token={token}"),
            format!("token={token}"),
            format!("authorization=Bearer%20{token}"),
        ] {
            let (status, body) = raw(
                &app,
                Method::GET,
                &format!("/api/dev/apps?{query}"),
                &[("x-org-id", &acme)],
            )
            .await;
            assert_eq!(status, 401, "{backend:?} {query}: {body}");
        }
        // The untouched session and token still work.
        let (status, _) = raw(
            &app,
            Method::GET,
            "/api/dev/apps",
            &[("authorization", &format!("Bearer {token}")), ("x-org-id", &acme)],
        )
        .await;
        assert_eq!(status, 200, "{backend:?}");
        let (status, _) = raw(
            &app,
            Method::GET,
            "/api/dev/tokens",
            &[("authorization", &format!("Bearer {session}"))],
        )
        .await;
        assert_eq!(status, 200, "{backend:?}");
    }
}

#[tokio::test]
async fn an_expired_or_revoked_token_and_another_accounts_token_reach_nothing() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let eve = sign_up(&app, "eve@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let eves = create_org(&app, &eve, "Eve's").await;
        let every_scope = ["apps:read", "apps:write", "apps:publish", "apps:keys"];
        let (ada_writes, _) = token_for(&app, &ada, Some(&acme), &every_scope).await;
        let package = "com.acme.attacked";
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/dev/apps/register",
            Some(&ada_writes),
            Some(&acme),
            Some(&json!({
                "packageName": package, "name": "Attacked", "description": "Ada's app",
                "publicUrl": "https://attacked.example.com", "logoURL": "https://cdn.example.com/logo.png",
            })),
        )
        .await;
        assert_eq!(status, 201, "{body}");

        // Every token route, as a token that works sees it.
        let routes = |org: &str| {
            [
                (Method::GET, "/api/dev/auth/me".to_owned(), None),
                (Method::GET, "/api/orgs".to_owned(), None),
                (Method::GET, format!("/api/orgs/{org}"), None),
                (Method::GET, "/api/dev/apps".to_owned(), None),
                (Method::GET, format!("/api/dev/apps/{package}"), None),
                (Method::GET, format!("/api/dev/apps/{package}/config"), None),
                (Method::GET, format!("/api/dev/apps/{package}/history"), None),
                (Method::GET, format!("/api/permissions/{package}"), None),
                (
                    Method::PUT,
                    format!("/api/dev/apps/{package}"),
                    Some(json!({"description": "Eve was here"})),
                ),
                (Method::POST, format!("/api/dev/apps/{package}/api-key"), None),
                (Method::POST, format!("/api/dev/apps/{package}/publish"), None),
                (Method::DELETE, format!("/api/dev/apps/{package}"), None),
            ]
        };

        // Eve's tokens, of every scope and of none she needs, bound to her organization or to none: Ada's
        // organization and app are not there for them (404 or 403, never a 2xx), whichever organization
        // the request names.
        let (eve_all, _) = token_for(&app, &eve, None, &every_scope).await;
        let (eve_bound, _) = token_for(&app, &eve, Some(&eves), &every_scope).await;
        let (eve_read, _) = token_for(&app, &eve, None, &["apps:read"]).await;
        for eve_token in [&eve_all, &eve_bound, &eve_read] {
            for named in [&acme, &eves] {
                for (method, path, body) in routes(&acme) {
                    if path == "/api/dev/auth/me" || path == "/api/orgs" {
                        continue;
                    }
                    let (status, answer) = call(
                        &app,
                        method.clone(),
                        &path,
                        Some(eve_token),
                        Some(named),
                        body.as_ref(),
                    )
                    .await;
                    if path == "/api/dev/apps" && named == &eves {
                        // Her own organization's list: hers to read, without Ada's app.
                        assert_eq!(status, 200, "{backend:?}: {answer}");
                        assert!(!answer.to_string().contains(package), "{backend:?}: {answer}");
                        continue;
                    }
                    assert!(
                        status == 403 || status == 404,
                        "{backend:?} {method} {path} in {named}: {status} {answer}"
                    );
                }
            }
            let (_, orgs) = call(&app, Method::GET, "/api/orgs", Some(eve_token), None, None).await;
            assert!(!orgs.to_string().contains(&acme), "{backend:?}: {orgs}");
        }
        let (status, app_read) = call(
            &app,
            Method::GET,
            &format!("/api/dev/apps/{package}"),
            Some(&ada.token),
            Some(&acme),
            None,
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(app_read["description"], "Ada's app", "{backend:?}: {app_read}");
        assert_eq!(
            app_read["appStoreStatus"], "DEVELOPMENT",
            "{backend:?}: {app_read}"
        );

        // A token that expires while in use: it works, then from its expiry on it reaches nothing (its
        // answers kept in memory included), without anything written meanwhile.
        let (expiring, expiring_id) = token_for(&app, &ada, Some(&acme), &every_scope).await;
        let expiry = chrono::Utc::now().timestamp_millis() + 5_000;
        {
            use adapter_db::schema::access_tokens::dsl;
            diesel::update(dsl::access_tokens.filter(dsl::id.eq(&expiring_id)))
                .set(dsl::expires_at.eq(expiry))
                .execute(&mut *db(&app).connection().unwrap())
                .unwrap();
        }
        for (method, path, _) in routes(&acme).into_iter().take(8) {
            let (status, answer) =
                call(&app, method.clone(), &path, Some(&expiring), Some(&acme), None).await;
            assert_eq!(
                status, 200,
                "{backend:?} {method} {path} before its expiry: {answer}"
            );
        }
        let wait = expiry - chrono::Utc::now().timestamp_millis() + 200;
        tokio::time::sleep(std::time::Duration::from_millis(
            u64::try_from(wait.max(0)).unwrap(),
        ))
        .await;
        for (method, path, body) in routes(&acme) {
            let (status, answer) = call(
                &app,
                method.clone(),
                &path,
                Some(&expiring),
                Some(&acme),
                body.as_ref(),
            )
            .await;
            assert_eq!(
                status, 401,
                "{backend:?} {method} {path} after its expiry: {answer}"
            );
            assert!(
                answer["error"].as_str().unwrap_or_default().contains("expired"),
                "{answer}"
            );
        }

        // A revoked token, on every route, right after it worked on each.
        let (revoked, revoked_id) = token_for(&app, &ada, Some(&acme), &every_scope).await;
        for (method, path, _) in routes(&acme).into_iter().take(8) {
            let (status, _) = call(&app, method.clone(), &path, Some(&revoked), Some(&acme), None).await;
            assert_eq!(status, 200, "{backend:?} {method} {path}");
        }
        let (status, _) = call(
            &app,
            Method::DELETE,
            &format!("/api/dev/tokens/{revoked_id}"),
            Some(&ada.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200);
        for (method, path, body) in routes(&acme) {
            let (status, answer) = call(
                &app,
                method.clone(),
                &path,
                Some(&revoked),
                Some(&acme),
                body.as_ref(),
            )
            .await;
            assert_eq!(status, 401, "{backend:?} {method} {path} once revoked: {answer}");
            assert!(
                answer["error"].as_str().unwrap_or_default().contains("revoked"),
                "{answer}"
            );
        }
        let (_, app_read) = call(
            &app,
            Method::GET,
            &format!("/api/dev/apps/{package}"),
            Some(&ada.token),
            Some(&acme),
            None,
        )
        .await;
        assert_eq!(app_read["description"], "Ada's app", "{backend:?}: {app_read}");
    }
}
