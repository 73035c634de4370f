//! The credential table (issue 47): every kind of credential (a session, a personal access token made by
//! it), made at either level (a password alone, or after a TOTP factor), then every change to its owner's
//! account since (none; a factor added by the session that made it; a factor added from another session;
//! the factor it passed removed; a password reset by e-mail; sign out everywhere; removed from the
//! organizations; the address proven by someone's mailbox), each tried on three actions: the product
//! (`GET /api/orgs`), an organization that requires two factors, and one that does not. One table, on both
//! databases; a row is what the server must answer.

use crate::helpers::TestApp;
use crate::identity::PASSWORD;
use crate::mfa::access_of;
use crate::org_fixtures::{BACKENDS, User, add_member, call, create_org, send};
use crate::org_two_factor::without_totp;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Session,
    Token,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Made {
    /// A password alone (`aal1`), the account without a factor.
    PasswordOnly,
    /// After passing a TOTP factor (`aal2`).
    SecondFactor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Nothing,
    FactorAddedBySameSession,
    FactorAddedElsewhere,
    FactorRemoved,
    PasswordReset,
    SignOutEverywhere,
    RemovedFromOrganizations,
    AddressProvenByMailbox,
}

/// (kind, made, change, [product, two-factor organization, plain organization]).
const TABLE: &[(Kind, Made, Change, [u16; 3])] = {
    use Change::*;
    use Kind::*;
    use Made::*;
    &[
        (Session, PasswordOnly, Nothing, [200, 403, 200]),
        (Token, PasswordOnly, Nothing, [200, 403, 200]),
        // The session passes the new factor and is raised; the token it made before stays at its level,
        // held back everywhere now that the account has a factor.
        (Session, PasswordOnly, FactorAddedBySameSession, [200, 200, 200]),
        (Token, PasswordOnly, FactorAddedBySameSession, [401, 401, 401]),
        // A factor confirmed elsewhere ends the password-only sessions, and the tokens they made.
        (Session, PasswordOnly, FactorAddedElsewhere, [401, 401, 401]),
        (Token, PasswordOnly, FactorAddedElsewhere, [401, 401, 401]),
        (Session, PasswordOnly, PasswordReset, [401, 401, 401]),
        (Token, PasswordOnly, PasswordReset, [401, 401, 401]),
        (Session, PasswordOnly, SignOutEverywhere, [401, 401, 401]),
        (Token, PasswordOnly, SignOutEverywhere, [401, 401, 401]),
        (Session, PasswordOnly, RemovedFromOrganizations, [200, 403, 403]),
        (Token, PasswordOnly, RemovedFromOrganizations, [200, 403, 403]),
        (Session, PasswordOnly, AddressProvenByMailbox, [401, 401, 401]),
        (Token, PasswordOnly, AddressProvenByMailbox, [401, 401, 401]),
        (Session, SecondFactor, Nothing, [200, 200, 200]),
        (Token, SecondFactor, Nothing, [200, 200, 200]),
        (Session, SecondFactor, FactorAddedBySameSession, [200, 200, 200]),
        (Token, SecondFactor, FactorAddedBySameSession, [200, 200, 200]),
        (Session, SecondFactor, FactorAddedElsewhere, [200, 200, 200]),
        (Token, SecondFactor, FactorAddedElsewhere, [200, 200, 200]),
        // The factor it passed is gone: both are lowered (and stay lowered, see token_credentials).
        (Session, SecondFactor, FactorRemoved, [200, 403, 200]),
        (Token, SecondFactor, FactorRemoved, [200, 403, 200]),
        (Session, SecondFactor, PasswordReset, [401, 401, 401]),
        (Token, SecondFactor, PasswordReset, [401, 401, 401]),
        (Session, SecondFactor, SignOutEverywhere, [401, 401, 401]),
        (Token, SecondFactor, SignOutEverywhere, [401, 401, 401]),
        (Session, SecondFactor, RemovedFromOrganizations, [200, 403, 403]),
        (Token, SecondFactor, RemovedFromOrganizations, [200, 403, 403]),
        (Session, SecondFactor, AddressProvenByMailbox, [401, 401, 401]),
        (Token, SecondFactor, AddressProvenByMailbox, [401, 401, 401]),
    ]
};

/// The organizations every case joins: one that requires two factors, one that does not.
struct World {
    admin: User,
    guarded: String,
    plain: String,
}

async fn world(app: &TestApp) -> World {
    let (_, session) = without_totp(app, "table-admin@example.com").await;
    let (_, _, aal2) = app.enrolled_totp(access_of(&session)).await;
    let admin = user_of(app, &session, &aal2).await;
    let guarded = create_org(app, &admin, "Guarded").await;
    let plain = create_org(app, &admin, "Plain").await;
    let (status, body) = send(
        app,
        Method::PUT,
        &format!("/api/orgs/{guarded}/two-factor"),
        &admin,
        json!({"requireTwoFactor": true}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    World {
        admin,
        guarded,
        plain,
    }
}

async fn user_of(app: &TestApp, session: &Value, access: &str) -> User {
    User {
        id: session["user"]["id"].as_str().unwrap().to_owned(),
        email: session["user"]["email"].as_str().unwrap().to_owned(),
        token: app.core_token(access).await,
    }
}

async fn set_password(app: &TestApp, access: &str, password: &str) {
    let response = app
        .client
        .put(app.url("/auth/v1/user"))
        .header("apikey", "built-in")
        .bearer_auth(access)
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        response.text().await.unwrap_or_default()
    );
}

/// Follows a recovery e-mail to `address`: the access token of the session it starts.
async fn recovered(app: &TestApp, address: &str) -> String {
    let asked = app.auth_post("/recover", json!({ "email": address })).await;
    assert_eq!(asked.status(), StatusCode::OK, "{address}");
    let (link, _) = app.last_email(address);
    let hash = link.split("token=").nth(1).unwrap().split('&').next().unwrap();
    let verified = app
        .auth_post("/verify", json!({"type": "recovery", "token_hash": hash}))
        .await;
    assert_eq!(verified.status(), StatusCode::OK);
    let session: Value = verified.json().await.unwrap();
    session["access_token"].as_str().unwrap().to_owned()
}

async fn auth(app: &TestApp, method: Method, path: &str, access: &str) -> StatusCode {
    app.client
        .request(method, app.url(&format!("/auth/v1{path}")))
        .header("apikey", "built-in")
        .bearer_auth(access)
        .send()
        .await
        .unwrap()
        .status()
}

/// Enrols and verifies a TOTP factor named "Tablet" (the fixtures' first is "Phone", and names are unique).
async fn another_totp(app: &TestApp, access: &str) {
    let enrolled = app
        .auth_with(
            "/factors",
            access,
            json!({"factor_type": "totp", "friendly_name": "Tablet"}),
        )
        .await;
    let status = enrolled.status();
    let enrolled: Value = enrolled.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{enrolled}");
    let secret = domain::identity::factors::totp::TotpSecret::new(crate::mfa::base32_decode(
        enrolled["totp"]["secret"].as_str().unwrap(),
    ));
    let id = enrolled["id"].as_str().unwrap();
    app.verified(id, &secret, access, crate::mfa::now_secs()).await;
}

/// Runs one row: answers what the three actions gave.
async fn run(app: &TestApp, world: &World, n: usize, kind: Kind, made: Made, change: Change) -> [u16; 3] {
    let address = format!("case{n}@example.com");
    // Each case from its own client address: the limits per address count the cases apart.
    let app = &app.as_client(&format!("198.51.100.{n}"));
    without_totp(app, &address).await;
    // Proven first (by its owner), so that only the last change of the table proves it by someone else.
    if change != Change::AddressProvenByMailbox {
        let proving = recovered(app, &address).await;
        set_password(app, &proving, PASSWORD).await;
    }
    let session = app.sign_in(&address).await;
    let mut access = access_of(&session).to_owned();
    let mut factor = None;
    if made == Made::SecondFactor {
        let (id, secret, raised) = app.enrolled_totp(&access).await;
        access = raised;
        factor = Some((id, secret));
    }
    let owner = user_of(app, &session, &access).await;
    add_member(app, &world.admin, &world.plain, &owner, "member").await;
    let credential = match kind {
        Kind::Session => owner.token.clone(),
        Kind::Token => {
            let body = json!({"name": format!("case {n}"), "scopes": ["apps:read"]});
            let (status, made) = call(
                app,
                Method::POST,
                "/api/dev/tokens",
                Some(&owner.token),
                None,
                Some(&body),
            )
            .await;
            assert_eq!(status, 201, "{made}");
            made["token"].as_str().unwrap().to_owned()
        }
    };
    // Joined after the credential was made (a password-only session may not make a token that reaches
    // an organization requiring two factors).
    add_member(app, &world.admin, &world.guarded, &owner, "member").await;

    match change {
        Change::Nothing => {}
        Change::FactorAddedBySameSession => {
            another_totp(app, &access).await;
        }
        Change::FactorAddedElsewhere => {
            let elsewhere = app.sign_in(&address).await;
            let mut other = access_of(&elsewhere).to_owned();
            if let Some((factor, secret)) = &factor {
                // A second session of a protected account passes the factor before it adds one (the next
                // step's code: this step's was used).
                other = app
                    .verified(factor, secret, &other, crate::mfa::now_secs() + 30)
                    .await;
            }
            another_totp(app, &other).await;
        }
        Change::FactorRemoved => {
            let Some((factor, _)) = &factor else {
                return [0, 0, 0];
            };
            assert_eq!(
                auth(app, Method::DELETE, &format!("/factors/{factor}"), &access).await,
                StatusCode::OK
            );
        }
        Change::PasswordReset => {
            let mut reset = recovered(app, &address).await;
            if let Some((factor, secret)) = &factor {
                // A protected account's recovery session passes the factor before it sets a password.
                reset = app
                    .verified(factor, secret, &reset, crate::mfa::now_secs() + 30)
                    .await;
            }
            set_password(app, &reset, "a fresh passphrase after the reset 7").await;
        }
        Change::SignOutEverywhere => {
            assert_eq!(
                auth(app, Method::POST, "/logout?scope=global", &access).await,
                StatusCode::NO_CONTENT
            );
        }
        Change::RemovedFromOrganizations => {
            for org in [&world.guarded, &world.plain] {
                let (status, body) = call(
                    app,
                    Method::DELETE,
                    &format!("/api/orgs/{org}/members/{}", owner.id),
                    Some(&world.admin.token),
                    None,
                    None,
                )
                .await;
                assert_eq!(status, 200, "{body}");
            }
        }
        Change::AddressProvenByMailbox => {
            recovered(app, &address).await;
        }
    }

    let apps_in = |org: &str| {
        app.client
            .get(app.url("/api/dev/apps"))
            .bearer_auth(&credential)
            .header("x-org-id", org.to_owned())
    };
    let product = app.client.get(app.url("/api/orgs")).bearer_auth(&credential);
    let mut answers = [0; 3];
    for (slot, request) in [product, apps_in(&world.guarded), apps_in(&world.plain)]
        .into_iter()
        .enumerate()
    {
        answers[slot] = request.send().await.unwrap().status().as_u16();
    }
    answers
}

#[tokio::test]
async fn every_credential_kind_by_how_it_was_made_by_what_changed_since_by_action() {
    for backend in BACKENDS {
        let app = crate::helpers::spawn_app_with(
            backend,
            &[
                ("PORTAL_PUBLIC_URL", crate::org_fixtures::PUBLIC_URL),
                ("PORTAL_TRUSTED_PROXIES", "127.0.0.1"),
            ],
        )
        .await;
        let world = world(&app).await;
        let mut wrong = Vec::new();
        for (n, (kind, made, change, expected)) in TABLE.iter().enumerate() {
            let got = run(&app, &world, n, *kind, *made, *change).await;
            if got != *expected {
                wrong.push(format!(
                    "{kind:?} {made:?} {change:?}: expected {expected:?}, got {got:?}"
                ));
            }
        }
        assert!(wrong.is_empty(), "{backend:?}:\n{}", wrong.join("\n"));
    }
}
