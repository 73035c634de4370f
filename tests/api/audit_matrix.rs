//! The audit table of PRODUCT.md §9, as data: for every mutating product route of the served OpenAPI
//! document (POST, PUT, PATCH, DELETE under `/api`), the entries an allowed call writes (action, target kind,
//! the names of the fields recorded as changed), or "no entry" with the reason. An allowed call writes exactly
//! its entries and a refused one (every refusal the authorization matrix lists for the route: 401, 403, 404,
//! 400, and the 409 of a rule checked after the authorization) writes none. A documented mutating route without a row fails the test, as a row for a route the
//! server does not have does.
//!
//! It runs on the world of the authorization matrix (`authz_matrix.rs`: its users, organizations, apps and
//! the request of each route), one server per backend.

use crate::authz_matrix::{
    CALLERS, Caller, MATRIX, NA, Request, Row, Target, World, request_for, set_up, upload_as,
};
use crate::helpers::TestApp;
use crate::org_fixtures::{User, add_member, call, create_org, get, invite, sign_in, sign_up};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// One entry as the table states it: action code, target kind, changed field names (in order).
type Entry = (&'static str, &'static str, &'static [&'static str]);

/// What an allowed call of a route records.
enum Expect {
    /// Exactly these entries, in the order written.
    Entries(&'static [Entry]),
    /// No entry, for the reason given.
    NoEntry(&'static str),
    /// This server answers no call of the route with a change (the reason says why and where its entry is
    /// tested); its refusals are still checked.
    NotReachableHere(&'static str),
}

use Expect::{Entries, NoEntry, NotReachableHere};

/// The table. Every mutating route of the OpenAPI document has one row.
#[rustfmt::skip]
const TABLE: &[(&str, &str, Expect)] = &[
    // Personal access tokens first, while the callers' sign-ins are recent (making one needs that). The
    // entry is written in each organization the token may act in: the allowed call binds it to one.
    ("POST",   "/api/dev/tokens",                            Entries(&[("token.created", "access_token", &["scopes"])])),
    ("DELETE", "/api/dev/tokens/{id}",                       Entries(&[("token.revoked", "access_token", &["scopes"])])),
    ("POST",   "/api/dev/tokens/revoke-all",                 Entries(&[("token.revoked", "access_token", &["scopes"])])),
    ("DELETE", "/api/orgs/{orgId}/tokens/{id}",              Entries(&[("token.revoked", "access_token", &["scopes"])])),
    ("POST",   "/api/orgs/{orgId}/webhooks",                 Entries(&[("webhook.created", "webhook", &["url", "events"])])),
    ("PATCH",  "/api/orgs/{orgId}/webhooks/{id}",            Entries(&[("webhook.updated", "webhook", &["description"])])),
    ("DELETE", "/api/orgs/{orgId}/webhooks/{id}",            Entries(&[("webhook.deleted", "webhook", &[])])),
    ("POST",   "/api/orgs/{orgId}/webhooks/{id}/rotate-secret", Entries(&[("webhook.secret_rotated", "webhook", &[])])),
    ("POST",   "/api/orgs/{orgId}/webhooks/{id}/test",       NoEntry("a test delivery changes nothing of the organization; it is in the endpoint's delivery log")),
    ("POST",   "/api/orgs/{orgId}/webhooks/{id}/deliveries/{deliveryId}/retry", NoEntry("sending a delivery again changes nothing of the organization; it is in the delivery log")),
    ("POST",   "/api/orgs",                                  Entries(&[("org.created", "organization", &["name"])])),
    ("PUT",    "/api/orgs/{orgId}",                          Entries(&[("org.updated", "organization", &["name"])])),
    ("DELETE", "/api/orgs/{orgId}",                          Entries(&[("org.deleted", "organization", &[])])),
    ("POST",   "/api/orgs/{orgId}/members",                  Entries(&[("invite.sent", "invitation", &["email", "role"])])),
    ("PATCH",  "/api/orgs/{orgId}/members/{memberId}",       Entries(&[("member.role_changed", "member", &["role"])])),
    // An admin removing another member (leaving is `member.left`, asserted below).
    ("DELETE", "/api/orgs/{orgId}/members/{memberId}",       Entries(&[("member.removed", "member", &[])])),
    ("POST",   "/api/orgs/accept/{token}",                   Entries(&[("invite.accepted", "invitation", &["role"])])),
    ("POST",   "/api/orgs/{orgId}/invites/resend",           Entries(&[("invite.resent", "invitation", &["emailSentCount", "expiresAt"])])),
    ("POST",   "/api/orgs/{orgId}/invites/rescind",          Entries(&[("invite.rescinded", "invitation", &[])])),
    ("POST",   "/api/dev/apps/register",                     Entries(&[("app.created", "app", &["name"])])),
    ("PUT",    "/api/dev/apps/{packageName}",                Entries(&[("app.updated", "app", &["name"])])),
    ("DELETE", "/api/dev/apps/{packageName}",                Entries(&[("app.deleted", "app", &[])])),
    ("POST",   "/api/dev/apps/{packageName}/publish",        Entries(&[("app.published", "app", &["appStoreStatus"])])),
    // Recorded in both organizations.
    ("POST",   "/api/dev/apps/{packageName}/move-org",       Entries(&[("app.moved", "app", &["organizationId"]), ("app.moved", "app", &["organizationId"])])),
    ("POST",   "/api/dev/apps/{packageName}/api-key",        Entries(&[("app.key_regenerated", "app", &[])])),
    ("PATCH",  "/api/dev/apps/{packageName}/visibility",     Entries(&[("app.visibility_changed", "app", &["sharedWithOrganization"])])),
    ("PATCH",  "/api/dev/apps/{packageName}/share-emails",   Entries(&[("app.sharing_changed", "app", &["sharedWithEmailsCount"])])),
    // The same list again: the count did not change, the entry says the list was written.
    ("POST",   "/api/dev/apps/{packageName}/share",          Entries(&[("app.sharing_changed", "app", &[])])),
    ("POST",   "/api/dev/apps/{packageName}/share/reset",    Entries(&[("app.share_link_reset", "app", &[])])),
    ("PATCH",  "/api/permissions/{packageName}",             Entries(&[("app.permissions_changed", "app", &["permissions"])])),
    ("POST",   "/api/dev/images/upload",                     Entries(&[("image.uploaded", "image", &["contentType", "size"])])),
    ("DELETE", "/api/dev/images/{imageId}",                  Entries(&[("image.deleted", "image", &[])])),
    ("POST",   "/api/admin/apps/{packageName}/approve",      Entries(&[("review.approved", "app", &["appStoreStatus", "reviewNotes"])])),
    ("POST",   "/api/admin/apps/{packageName}/reject",       Entries(&[("review.rejected", "app", &["appStoreStatus", "reviewNotes"])])),
    ("POST",   "/api/admin/users",                           Entries(&[("platform.role_granted", "account", &["platformRole"])])),
    ("DELETE", "/api/admin/users/{email}",                   Entries(&[("platform.role_revoked", "account", &["platformRole"])])),
    ("POST",   "/api/admin/setup",                           NotReachableHere("the platform has an admin, so no setup link is valid; `platform.first_admin` is asserted by first_admin.rs")),
    ("POST",   "/api/admin/create-test-submission",          NotReachableHere("demo mode is off on this server (404); with it on, the sample app is recorded as app.created and app.published by the domain")),
    ("POST",   "/api/admin/fix-app-statuses",                NoEntry("a maintenance repair of legacy status spellings (`Submitted` to `SUBMITTED`): it changes no value anyone chose")),
    ("POST",   "/api/auth/exchange-token",                   NoEntry("signing in changes nothing of an organization or the platform")),
    // Turning the second-factor requirement on, by an admin whose session passed a factor (last: its allowed
    // call gives the stranger a factor).
    ("PUT",    "/api/orgs/{orgId}/two-factor",               Entries(&[("org.updated", "organization", &["requireTwoFactor"])])),
    ("PUT",    "/api/dev/auth/profile",                      NoEntry("the caller's own display name and profile: the account's, not an organization's or the platform's")),
    ("DELETE", "/api/dev/auth/sessions/{id}",                NoEntry("the caller's own session: the account's, not an organization's or the platform's; the account is e-mailed")),
];

/// `(METHOD, path)` of every mutating route under `/api` the served OpenAPI document describes.
async fn mutating_routes(app: &TestApp) -> BTreeSet<(String, String)> {
    let doc = app.get_json("/api/openapi.json").await;
    let mut routes = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let method = method.to_uppercase();
            if ["POST", "PUT", "PATCH", "DELETE"].contains(&method.as_str())
                && path.starts_with("/api/")
                && !path.starts_with("/auth/v1")
            {
                routes.insert((method, path.clone()));
            }
        }
    }
    routes
}

fn check_the_table_covers(documented: &BTreeSet<(String, String)>) {
    let in_table: BTreeSet<(String, String)> = TABLE
        .iter()
        .map(|(m, p, _)| ((*m).to_owned(), (*p).to_owned()))
        .collect();
    assert_eq!(in_table.len(), TABLE.len(), "a route has two rows");
    let missing: Vec<_> = documented.difference(&in_table).collect();
    assert!(
        missing.is_empty(),
        "mutating routes without a row in the audit table (say which entry they write, or why none): {missing:?}"
    );
    let stale: Vec<_> = in_table.difference(documented).collect();
    assert!(
        stale.is_empty(),
        "audit rows for routes the server does not have: {stale:?}"
    );
}

/// Every stored entry: id, action, target kind, changes (JSON text), in no particular order.
type Stored = (String, String, Option<String>, String);

fn stored(db: &Db) -> Vec<Stored> {
    use adapter_db::schema::audit_log::dsl;
    let mut conn = db.connection().unwrap();
    dsl::audit_log
        .order((dsl::at.asc(), dsl::id.asc()))
        .select((dsl::id, dsl::action, dsl::target_kind, dsl::changes))
        .load(&mut *conn)
        .unwrap()
}

/// The entries written since `before`, as (action, target kind, changed fields).
fn written_since(db: &Db, before: &[Stored]) -> Vec<(String, String, Vec<String>)> {
    let seen: BTreeSet<&String> = before.iter().map(|(id, ..)| id).collect();
    stored(db)
        .into_iter()
        .filter(|(id, ..)| !seen.contains(id))
        .map(|(_, action, kind, changes)| {
            let changes: Value = serde_json::from_str(&changes).unwrap();
            let fields = changes
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["field"].as_str().unwrap().to_owned())
                .collect();
            (action, kind.unwrap_or_default(), fields)
        })
        .collect()
}

fn expected_entries(entries: &[Entry]) -> Vec<(String, String, Vec<String>)> {
    entries
        .iter()
        .map(|(action, kind, fields)| {
            (
                (*action).to_owned(),
                (*kind).to_owned(),
                fields.iter().map(|f| (*f).to_owned()).collect(),
            )
        })
        .collect()
}

/// The matrix row of the route for the own organization.
fn own_row(method: &str, path: &str) -> Option<&'static Row> {
    MATRIX
        .iter()
        .find(|r| r.method == method && r.path == path && r.target == Target::Own)
}

fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// Sends a request of the matrix as `user`.
async fn send_request(app: &TestApp, method: &str, request: &Request, user: Option<&User>) -> (u16, Value) {
    let token = user.map(|u| u.token.as_str());
    if request.upload {
        return upload_as(app, token, request.header.as_deref().unwrap_or_default()).await;
    }
    call(
        app,
        Method::from_bytes(method.as_bytes()).unwrap(),
        &request.path,
        token,
        request.header.as_deref(),
        request.body.as_ref(),
    )
    .await
}

/// The allowed call of routes whose matrix request is refused after the authorization (the only admin
/// leaving, an organization that owns an app, an invitation nobody of the callers may accept) or that the
/// matrix exempts: a request that changes something. `None`: the matrix request of the first allowed caller.
async fn allowed_call(
    app: &TestApp,
    world: &World,
    method: &str,
    path: &str,
    n: usize,
) -> Option<(u16, Value)> {
    match (method, path) {
        ("POST", "/api/dev/tokens") => Some(
            call(
                app,
                Method::POST,
                "/api/dev/tokens",
                Some(&world.admin.token),
                None,
                Some(&json!({"name": format!("Audited {n}"), "orgId": world.org, "scopes": ["apps:read"]})),
            )
            .await,
        ),
        ("POST", "/api/dev/tokens/revoke-all") => {
            // A fresh token of the organization's, so that one is active to revoke.
            let (status, made) = call(
                app,
                Method::POST,
                "/api/dev/tokens",
                Some(&world.admin.token),
                None,
                Some(&json!({"name": format!("Revoked with all {n}"), "orgId": world.org, "scopes": ["apps:read"]})),
            )
            .await;
            assert_eq!(status, 201, "{made}");
            Some(
                call(
                    app,
                    Method::POST,
                    "/api/dev/tokens/revoke-all",
                    Some(&world.admin.token),
                    None,
                    None,
                )
                .await,
            )
        }
        ("DELETE", "/api/orgs/{orgId}") => {
            let org = create_org(app, &world.admin, &format!("Short-lived {n}")).await;
            Some(
                call(
                    app,
                    Method::DELETE,
                    &format!("/api/orgs/{org}"),
                    Some(&world.admin.token),
                    None,
                    None,
                )
                .await,
            )
        }
        ("DELETE", "/api/orgs/{orgId}/members/{memberId}") => {
            let extra = sign_up(app, &format!("extra-{n}@example.com")).await;
            add_member(app, &world.admin, &world.org, &extra, "member").await;
            let path = format!("/api/orgs/{}/members/{}", world.org, extra.id);
            Some(call(app, Method::DELETE, &path, Some(&world.admin.token), None, None).await)
        }
        ("PUT", "/api/orgs/{orgId}/two-factor") => {
            // The matrix's admin has no second factor and could only turn it off (it is off): the stranger
            // adds one (no new account: sign-ups per client address are limited) and turns it on in an
            // organization of their own.
            let session = app.sign_in(&world.stranger.email).await;
            let (_, _, aal2) = app.enrolled_totp(crate::mfa::access_of(&session)).await;
            let admin = User {
                token: app.core_token(&aal2).await,
                ..world.stranger.clone()
            };
            let org = create_org(app, &admin, &format!("Guarded {n}")).await;
            let path = format!("/api/orgs/{org}/two-factor");
            let body = json!({"requireTwoFactor": true});
            Some(call(app, Method::PUT, &path, Some(&admin.token), None, Some(&body)).await)
        }
        ("POST", "/api/orgs/accept/{token}") => {
            let address = format!("joining-{n}@example.com");
            let joining = sign_up(app, &address).await;
            let token = invite(app, &world.admin, &world.org, &address, "member").await;
            let path = format!("/api/orgs/accept/{token}");
            Some(call(app, Method::POST, &path, Some(&joining.token), None, None).await)
        }
        ("POST", "/api/auth/exchange-token") => {
            // `sign_in` exchanges the identity token for a core token through this route.
            sign_in(app, &world.member.email).await;
            Some((200, Value::Null))
        }
        ("DELETE", "/api/dev/auth/sessions/{id}") => {
            // A second session of the member, signed out from the first.
            let second = sign_in(app, &world.member.email).await;
            let (status, list) = call(
                app,
                Method::GET,
                "/api/dev/auth/sessions",
                Some(&second.token),
                None,
                None,
            )
            .await;
            assert_eq!(status, 200, "{list}");
            let id = list["sessions"]
                .as_array()
                .and_then(|all| all.iter().find(|s| s["current"] == true))
                .and_then(|s| s["id"].as_str())
                .unwrap()
                .to_owned();
            let path = format!("/api/dev/auth/sessions/{id}");
            Some(call(app, Method::DELETE, &path, Some(&world.member.token), None, None).await)
        }
        ("PUT", "/api/dev/auth/profile") => Some(
            call(
                app,
                Method::PUT,
                "/api/dev/auth/profile",
                Some(&world.member.token),
                None,
                Some(&json!({"displayName": format!("Member {n}")})),
            )
            .await,
        ),
        _ => None,
    }
}

async fn run_table(backend: Backend) {
    let app = crate::org_fixtures::spawn_allowing_private(backend).await;
    check_the_table_covers(&mutating_routes(&app).await);
    let world = set_up(&app).await;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut failures = Vec::new();
    // Fresh names per request (the matrix's own numbering stays below this).
    let mut counter = 10_000;
    let mut fresh = || {
        counter += 1;
        counter
    };

    for (method, path, expect) in TABLE {
        let row = own_row(method, path);

        // Refused calls: every refusal the matrix lists for the own organization and for the other one.
        for target_row in MATRIX.iter().filter(|r| r.method == *method && r.path == *path) {
            for (column, caller) in CALLERS.iter().enumerate() {
                let status = target_row.expected[column];
                if status == NA || is_success(status) {
                    continue;
                }
                let request = request_for(&app, &world, target_row, fresh()).await;
                let before = stored(&db);
                let (got, body) = send_request(&app, method, &request, world.user(*caller)).await;
                let written = written_since(&db, &before);
                if got != status || !written.is_empty() {
                    failures.push(format!(
                        "{method} {path} {:?} refused for {caller:?}: expected {status} and no entry, got {got} {body} and {written:?}",
                        target_row.target
                    ));
                }
            }
        }

        // The allowed call.
        if let NotReachableHere(reason) = expect {
            assert!(!reason.is_empty(), "{method} {path}: say why");
            continue;
        }
        let before = stored(&db);
        let answered = match allowed_call(&app, &world, method, path, fresh()).await {
            Some(answer) => Some((answer, false)),
            None => {
                let row = row.unwrap_or_else(|| panic!("{method} {path}: no matrix row and no allowed call"));
                let allowed = [Caller::Admin, Caller::PlatformAdmin, Caller::Member]
                    .into_iter()
                    .find(|c| is_success(row.expected[CALLERS.iter().position(|x| x == c).unwrap()]));
                match allowed {
                    Some(caller) => {
                        let request = request_for(&app, &world, row, fresh()).await;
                        // Requests build their fixtures (fresh apps, images, invitations) with calls that are
                        // recorded too: only what the call itself writes counts.
                        let before_call = stored(&db);
                        let answer = send_request(&app, method, &request, world.user(caller)).await;
                        let written = written_since(&db, &before_call);
                        if request.restore_member_role && answer.0 == 200 {
                            let path = format!("/api/orgs/{}/members/{}", world.org, world.member.id);
                            let (status, _) = call(
                                &app,
                                Method::PATCH,
                                &path,
                                Some(&world.admin.token),
                                None,
                                Some(&json!({"role": "member"})),
                            )
                            .await;
                            assert_eq!(status, 200);
                        }
                        check_allowed(&mut failures, method, path, expect, answer, written);
                        None
                    }
                    None => {
                        failures.push(format!("{method} {path}: the matrix allows nobody"));
                        None
                    }
                }
            }
        };
        if let Some((answer, _)) = answered {
            let written = written_since(&db, &before);
            let written = match (*method, *path) {
                // The fixture calls of these requests are recorded too (an organization made, a member
                // added, an invitation sent): only the entries after them count.
                ("DELETE", "/api/orgs/{orgId}") => written.into_iter().skip(1).collect(),
                // After the fresh token's creation, the entry of its revocation (the newest is revoked
                // first; earlier rows may have left others of the admin's active, revoked after it).
                ("POST", "/api/dev/tokens/revoke-all") => written.into_iter().skip(1).take(1).collect(),
                ("DELETE", "/api/orgs/{orgId}/members/{memberId}") => written.into_iter().skip(2).collect(),
                ("POST", "/api/orgs/accept/{token}") | ("PUT", "/api/orgs/{orgId}/two-factor") => {
                    written.into_iter().skip(1).collect()
                }
                _ => written,
            };
            check_allowed(&mut failures, method, path, expect, answer, written);
        }
    }

    // A member leaving is recorded as `member.left` by the same route as a removal.
    let leaving = sign_up(&app, "leaving-member@example.com").await;
    add_member(&app, &world.admin, &world.org, &leaving, "member").await;
    let before = stored(&db);
    let path = format!("/api/orgs/{}/members/{}", world.org, leaving.id);
    let (status, body) = call(&app, Method::DELETE, &path, Some(&leaving.token), None, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        written_since(&db, &before),
        expected_entries(&[("member.left", "member", &[])])
    );
    // The personal organization made at a new user's first dashboard is an organization created.
    let newcomer = sign_up(&app, "newcomer@example.com").await;
    let before = stored(&db);
    let (status, _) = get(&app, "/api/orgs", &newcomer).await;
    assert_eq!(status, 200);
    assert_eq!(
        written_since(&db, &before),
        expected_entries(&[("org.created", "organization", &["name"])])
    );

    assert!(failures.is_empty(), "{backend:?}:\n{}", failures.join("\n"));
}

fn check_allowed(
    failures: &mut Vec<String>,
    method: &str,
    path: &str,
    expect: &Expect,
    (status, body): (u16, Value),
    written: Vec<(String, String, Vec<String>)>,
) {
    if !is_success(status) {
        failures.push(format!(
            "{method} {path}: the allowed call answered {status} {body}"
        ));
        return;
    }
    let (expected, why) = match expect {
        Entries(entries) => (expected_entries(entries), ""),
        NoEntry(reason) | NotReachableHere(reason) => (Vec::new(), *reason),
    };
    if written != expected {
        failures.push(format!(
            "{method} {path}: expected {expected:?} {why}, written {written:?}"
        ));
    }
}

#[tokio::test]
async fn every_mutating_route_writes_its_documented_entry_on_sqlite() {
    run_table(Backend::Sqlite).await;
}

#[tokio::test]
async fn every_mutating_route_writes_its_documented_entry_on_postgres() {
    run_table(Backend::Postgres).await;
}
