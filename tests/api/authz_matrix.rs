//! The authorization matrix of the product API, as data: for every endpoint of the organization, app,
//! permission, image and tester-link calls, every kind of caller and every target, the status the server
//! must answer (PRODUCT.md §3: membership and role are checked on every request; a non-member learns
//! nothing, 404 or 403; `x-org-id` is never trusted blindly, 403).
//!
//! The table must name every route of the served OpenAPI document (but the few listed in [`EXEMPT`]), each
//! with the three targets: a route without rows fails the test. Requests that a wrongly trusted `x-org-id`
//! would let through must change nothing: the state is compared before and after each of them.
//!
//! One server per backend, the users and organizations set up once. The requests are built so that the
//! allowed ones can run again (idempotent changes, fresh addresses, a refusal after the authorization such as
//! the only admin leaving or an organization that still owns an app).

use crate::helpers::TestApp;
use crate::org_fixtures::{
    BACKENDS, User, accept, add_member, call, code, create_org, get, insert_app, invite, invite_token, send,
    sign_in, sign_up, spawn,
};
use adapter_db::{Backend, Db};
use app_server::admin_cli::{self, AdminCommand};
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// No `Authorization` header.
    Anonymous,
    /// Signed in, in no organization of the test (only the personal one).
    Stranger,
    /// A member of the organization.
    Member,
    /// An admin of the organization.
    Admin,
    /// A platform reviewer, not in the organization.
    Reviewer,
    /// A platform admin (granted by `app-server admin grant`), not in the organization.
    PlatformAdmin,
}

/// The columns of every row, in order.
pub(crate) const CALLERS: [Caller; 6] = [
    Caller::Anonymous,
    Caller::Stranger,
    Caller::Member,
    Caller::Admin,
    Caller::Reviewer,
    Caller::PlatformAdmin,
];

/// What the request points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Organization calls: the organization (of the member and the admin) in the path, no `x-org-id`.
    /// Calls scoped by `x-org-id` (apps, permissions, images): the header names that organization and the
    /// path names one of its apps or images.
    Own,
    /// Organization calls: another organization (nobody of the callers belongs to it) in the path, no
    /// `x-org-id`. Calls scoped by `x-org-id`: the header names the own organization, the path an app or
    /// image of the other one.
    Other,
    /// The own organization's path or resource, and `x-org-id` naming the other organization.
    Forged,
    /// Staff calls on one app (`/api/admin/apps/{packageName}…`): the own organization's app still in its
    /// first development, which platform staff never see (PRODUCT.md §1: 404, as for no app at all). The
    /// other targets of those rows name apps submitted for review.
    NeverSubmitted,
}

/// Not applicable: the endpoint names no organization (the row is still there, so that the table shows it).
pub(crate) const NA: u16 = 0;

/// One row: an endpoint and target, and the expected status per caller (the order of [`CALLERS`]).
pub(crate) struct Row {
    pub(crate) method: &'static str,
    pub(crate) path: &'static str,
    pub(crate) target: Target,
    pub(crate) expected: [u16; 6],
}

const fn row(method: &'static str, path: &'static str, target: Target, expected: [u16; 6]) -> Row {
    Row {
        method,
        path,
        target,
        expected,
    }
}

use Target::{Forged, NeverSubmitted, Other, Own};

/// The matrix. Columns: anonymous, stranger, member, admin, platform reviewer, platform admin.
#[rustfmt::skip]
pub(crate) const MATRIX: &[Row] = &[
    // Personal access tokens: first, while the callers' sign-ins are recent (making one needs that). One's
    // own tokens name no organization (x-org-id plays no part); revoking another's is 404.
    row("POST",   "/api/dev/tokens",                       Own,    [401, 201, 201, 201, 201, 201]),
    row("POST",   "/api/dev/tokens",                       Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/dev/tokens",                       Forged, [401, 201, 201, 201, 201, 201]),
    row("GET",    "/api/dev/tokens",                       Own,    [401, 200, 200, 200, 200, 200]),
    row("GET",    "/api/dev/tokens",                       Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/dev/tokens",                       Forged, [401, 200, 200, 200, 200, 200]),
    row("DELETE", "/api/dev/tokens/{id}",                  Own,    [401, 404, 404, 200, 404, 404]),
    row("DELETE", "/api/dev/tokens/{id}",                  Other,  [401, 404, 404, 404, 404, 404]),
    row("DELETE", "/api/dev/tokens/{id}",                  Forged, [401, 404, 404, 200, 404, 404]),
    // "Revoke all": always one's own tokens (200 with how many, 0 when none work).
    row("POST",   "/api/dev/tokens/revoke-all",            Own,    [401, 200, 200, 200, 200, 200]),
    row("POST",   "/api/dev/tokens/revoke-all",            Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/dev/tokens/revoke-all",            Forged, [401, 200, 200, 200, 200, 200]),
    // The tokens that act in an organization: its admins.
    row("GET",    "/api/orgs/{orgId}/tokens",              Own,    [401, 404, 403, 200, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/tokens",              Other,  [401, 404, 404, 404, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/tokens",              Forged, [401, 403, 403, 403, 403, 403]),
    row("DELETE", "/api/orgs/{orgId}/tokens/{id}",         Own,    [401, 404, 403, 200, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}/tokens/{id}",         Other,  [401, 404, 404, 404, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}/tokens/{id}",         Forged, [401, 403, 403, 403, 403, 403]),
    // Webhooks: the organization's admins, with a session (no token scope reaches them).
    row("GET",    "/api/orgs/{orgId}/webhooks",            Own,    [401, 404, 403, 200, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/webhooks",            Other,  [401, 404, 404, 404, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/webhooks",            Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/{orgId}/webhooks",            Own,    [401, 404, 403, 201, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks",            Other,  [401, 404, 404, 404, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks",            Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/orgs/{orgId}/webhooks/{id}",       Own,    [401, 404, 403, 200, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/webhooks/{id}",       Other,  [401, 404, 404, 404, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/webhooks/{id}",       Forged, [401, 403, 403, 403, 403, 403]),
    row("PATCH",  "/api/orgs/{orgId}/webhooks/{id}",       Own,    [401, 404, 403, 200, 404, 404]),
    row("PATCH",  "/api/orgs/{orgId}/webhooks/{id}",       Other,  [401, 404, 404, 404, 404, 404]),
    row("PATCH",  "/api/orgs/{orgId}/webhooks/{id}",       Forged, [401, 403, 403, 403, 403, 403]),
    row("DELETE", "/api/orgs/{orgId}/webhooks/{id}",       Own,    [401, 404, 403, 204, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}/webhooks/{id}",       Other,  [401, 404, 404, 404, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}/webhooks/{id}",       Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/rotate-secret", Own,    [401, 404, 403, 200, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/rotate-secret", Other,  [401, 404, 404, 404, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/rotate-secret", Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/test",  Own,    [401, 404, 403, 202, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/test",  Other,  [401, 404, 404, 404, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/test",  Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/orgs/{orgId}/webhooks/{id}/deliveries", Own,    [401, 404, 403, 200, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/webhooks/{id}/deliveries", Other,  [401, 404, 404, 404, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/webhooks/{id}/deliveries", Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/deliveries/{deliveryId}/retry", Own,    [401, 404, 403, 202, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/deliveries/{deliveryId}/retry", Other,  [401, 404, 404, 404, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/webhooks/{id}/deliveries/{deliveryId}/retry", Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/orgs",                             Own,    [401, 200, 200, 200, 200, 200]),
    row("GET",    "/api/orgs",                             Other,  [NA, NA, NA, NA, NA, NA]),
    // Listing and creating organizations name none: x-org-id plays no part (a stale one, of an organization
    // the caller left, must not lock them out of choosing or making another).
    row("GET",    "/api/orgs",                             Forged, [401, 200, 200, 200, 200, 200]),
    row("POST",   "/api/orgs",                             Own,    [401, 201, 201, 201, 201, 201]),
    row("POST",   "/api/orgs",                             Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/orgs",                             Forged, [401, 201, 201, 201, 201, 201]),
    row("GET",    "/api/orgs/{orgId}",                     Own,    [401, 404, 200, 200, 404, 404]),
    row("GET",    "/api/orgs/{orgId}",                     Other,  [401, 404, 404, 404, 404, 404]),
    row("GET",    "/api/orgs/{orgId}",                     Forged, [401, 403, 403, 403, 403, 403]),
    row("PUT",    "/api/orgs/{orgId}",                     Own,    [401, 404, 403, 200, 404, 404]),
    row("PUT",    "/api/orgs/{orgId}",                     Other,  [401, 404, 404, 404, 404, 404]),
    row("PUT",    "/api/orgs/{orgId}",                     Forged, [401, 403, 403, 403, 403, 403]),
    // The second-factor requirement: admins only. The rows turn it off (it is off: nothing changes); turning
    // it on needs the admin's session at aal2, which `org_two_factor.rs` covers.
    row("PUT",    "/api/orgs/{orgId}/two-factor",          Own,    [401, 404, 403, 200, 404, 404]),
    row("PUT",    "/api/orgs/{orgId}/two-factor",          Other,  [401, 404, 404, 404, 404, 404]),
    row("PUT",    "/api/orgs/{orgId}/two-factor",          Forged, [401, 403, 403, 403, 403, 403]),
    // The admin's delete passes the authorization and is refused because the organization owns an app.
    row("DELETE", "/api/orgs/{orgId}",                     Own,    [401, 404, 403, 409, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}",                     Other,  [401, 404, 404, 404, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}",                     Forged, [401, 403, 403, 403, 403, 403]),
    // The audit log: organization admins only (PRODUCT.md §9).
    row("GET",    "/api/orgs/{orgId}/audit-log",           Own,    [401, 404, 403, 200, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/audit-log",           Other,  [401, 404, 404, 404, 404, 404]),
    row("GET",    "/api/orgs/{orgId}/audit-log",           Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/{orgId}/members",             Own,    [401, 404, 403, 201, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/members",             Other,  [401, 404, 404, 404, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/members",             Forged, [401, 403, 403, 403, 403, 403]),
    // memberId: the member (made admin, then put back).
    row("PATCH",  "/api/orgs/{orgId}/members/{memberId}",  Own,    [401, 404, 403, 200, 404, 404]),
    row("PATCH",  "/api/orgs/{orgId}/members/{memberId}",  Other,  [401, 404, 404, 404, 404, 404]),
    row("PATCH",  "/api/orgs/{orgId}/members/{memberId}",  Forged, [401, 403, 403, 403, 403, 403]),
    // memberId: the only admin (the admin leaving is refused: 409).
    row("DELETE", "/api/orgs/{orgId}/members/{memberId}",  Own,    [401, 404, 403, 409, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}/members/{memberId}",  Other,  [401, 404, 404, 404, 404, 404]),
    row("DELETE", "/api/orgs/{orgId}/members/{memberId}",  Forged, [401, 403, 403, 403, 403, 403]),
    // The token of an invitation to an address none of the callers has.
    row("POST",   "/api/orgs/accept/{token}",              Own,    [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/accept/{token}",              Other,  [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/accept/{token}",              Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/{orgId}/invites/resend",      Own,    [401, 404, 403, 200, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/invites/resend",      Other,  [401, 404, 404, 404, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/invites/resend",      Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/orgs/{orgId}/invites/rescind",     Own,    [401, 404, 403, 200, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/invites/rescind",     Other,  [401, 404, 404, 404, 404, 404]),
    row("POST",   "/api/orgs/{orgId}/invites/rescind",     Forged, [401, 403, 403, 403, 403, 403]),

    // Apps, in the organization of x-org-id. Another organization's app is not found (404) for members of
    // the header's organization; callers outside it are refused by the header check (403).
    row("GET",    "/api/dev/apps",                                     Own,    [401, 403, 200, 200, 403, 403]),
    row("GET",    "/api/dev/apps",                                     Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/dev/apps",                                     Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/dev/apps/register",                            Own,    [401, 403, 201, 201, 403, 403]),
    row("POST",   "/api/dev/apps/register",                            Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/dev/apps/register",                            Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}",                       Own,    [401, 403, 200, 200, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}",                       Other,  [401, 403, 404, 404, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}",                       Forged, [401, 403, 403, 403, 403, 403]),
    row("PUT",    "/api/dev/apps/{packageName}",                       Own,    [401, 403, 200, 200, 403, 403]),
    row("PUT",    "/api/dev/apps/{packageName}",                       Other,  [401, 403, 404, 404, 403, 403]),
    row("PUT",    "/api/dev/apps/{packageName}",                       Forged, [401, 403, 403, 403, 403, 403]),
    // A fresh app for each request.
    row("DELETE", "/api/dev/apps/{packageName}",                       Own,    [401, 403, 204, 204, 403, 403]),
    row("DELETE", "/api/dev/apps/{packageName}",                       Other,  [401, 403, 404, 404, 403, 403]),
    row("DELETE", "/api/dev/apps/{packageName}",                       Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/publish",               Own,    [401, 403, 200, 200, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/publish",               Other,  [401, 403, 404, 404, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/publish",               Forged, [401, 403, 403, 403, 403, 403]),
    // Into a third organization the admin belongs to; only admins of the source move an app out.
    row("POST",   "/api/dev/apps/{packageName}/move-org",              Own,    [401, 403, 403, 200, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/move-org",              Other,  [401, 403, 403, 404, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/move-org",              Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/api-key",               Own,    [401, 403, 200, 200, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/api-key",               Other,  [401, 403, 404, 404, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/api-key",               Forged, [401, 403, 403, 403, 403, 403]),
    row("PATCH",  "/api/dev/apps/{packageName}/visibility",            Own,    [401, 403, 200, 200, 403, 403]),
    row("PATCH",  "/api/dev/apps/{packageName}/visibility",            Other,  [401, 403, 404, 404, 403, 403]),
    row("PATCH",  "/api/dev/apps/{packageName}/visibility",            Forged, [401, 403, 403, 403, 403, 403]),
    row("PATCH",  "/api/dev/apps/{packageName}/share-emails",          Own,    [401, 403, 200, 200, 403, 403]),
    row("PATCH",  "/api/dev/apps/{packageName}/share-emails",          Other,  [401, 403, 404, 404, 403, 403]),
    row("PATCH",  "/api/dev/apps/{packageName}/share-emails",          Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/share",                 Own,    [401, 403, 200, 200, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/share",                 Other,  [401, 403, 404, 404, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/share",                 Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/share",                 Own,    [401, 403, 200, 200, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/share",                 Other,  [401, 403, 404, 404, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/share",                 Forged, [401, 403, 403, 403, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/share/reset",           Own,    [401, 403, 200, 200, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/share/reset",           Other,  [401, 403, 404, 404, 403, 403]),
    row("POST",   "/api/dev/apps/{packageName}/share/reset",           Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/config",                Own,    [401, 403, 200, 200, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/config",                Other,  [401, 403, 404, 404, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/config",                Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/history",               Own,    [401, 403, 200, 200, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/history",               Other,  [401, 403, 404, 404, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/history",               Forged, [401, 403, 403, 403, 403, 403]),
    row("GET",    "/api/permissions/{packageName}",                    Own,    [401, 403, 200, 200, 403, 403]),
    row("GET",    "/api/permissions/{packageName}",                    Other,  [401, 403, 404, 404, 403, 403]),
    row("GET",    "/api/permissions/{packageName}",                    Forged, [401, 403, 403, 403, 403, 403]),
    row("PATCH",  "/api/permissions/{packageName}",                    Own,    [401, 403, 200, 200, 403, 403]),
    row("PATCH",  "/api/permissions/{packageName}",                    Other,  [401, 403, 404, 404, 403, 403]),
    row("PATCH",  "/api/permissions/{packageName}",                    Forged, [401, 403, 403, 403, 403, 403]),
    // The tester page of a share link is public: anyone holding the link, whatever the header says.
    row("GET",    "/api/install/{token}",                              Own,    [200, 200, 200, 200, 200, 200]),
    row("GET",    "/api/install/{token}",                              Other,  [200, 200, 200, 200, 200, 200]),
    row("GET",    "/api/install/{token}",                              Forged, [200, 200, 200, 200, 200, 200]),

    // Images, in the organization of x-org-id (a fresh image for each delete).
    row("POST",   "/api/dev/images/upload",                            Own,    [401, 403, 200, 200, 403, 403]),
    row("POST",   "/api/dev/images/upload",                            Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/dev/images/upload",                            Forged, [401, 403, 403, 403, 403, 403]),
    row("DELETE", "/api/dev/images/{imageId}",                         Own,    [401, 403, 200, 200, 403, 403]),
    row("DELETE", "/api/dev/images/{imageId}",                         Other,  [401, 403, 404, 404, 403, 403]),
    row("DELETE", "/api/dev/images/{imageId}",                         Forged, [401, 403, 403, 403, 403, 403]),
    // Delivery is public (images are shown on public pages).
    row("GET",    "/api/images/{imageId}",                             Own,    [200, 200, 200, 200, 200, 200]),
    row("GET",    "/api/images/{imageId}",                             Other,  [200, 200, 200, 200, 200, 200]),
    row("GET",    "/api/images/{imageId}",                             Forged, [200, 200, 200, 200, 200, 200]),

    // The live health check of the publish dialog: the app's own server (a loopback one, which the guarded
    // prober refuses without fetching anything; the answer says so).
    row("GET",    "/api/dev/apps/{packageName}/health-check",          Own,    [401, 403, 200, 200, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/health-check",          Other,  [401, 403, 404, 404, 403, 403]),
    row("GET",    "/api/dev/apps/{packageName}/health-check",          Forged, [401, 403, 403, 403, 403, 403]),

    // Uptime: platform staff only, across organizations; x-org-id plays no part (a forged one changes
    // nothing). The ping names an unregistered URL: staff get 404 and nothing is fetched.
    row("GET",    "/api/app-uptime/status",                            Own,    [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/status",                            Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/app-uptime/status",                            Forged, [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/get-app-uptime-days",               Own,    [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/get-app-uptime-days",               Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/app-uptime/get-app-uptime-days",               Forged, [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/apps/{packageName}",                Own,    [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/apps/{packageName}",                Other,  [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/apps/{packageName}",                Forged, [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/apps/{packageName}/days/{day}",     Own,    [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/apps/{packageName}/days/{day}",     Other,  [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/apps/{packageName}/days/{day}",     Forged, [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/app-uptime/ping",                              Own,    [401, 403, 403, 403, 404, 404]),
    row("GET",    "/api/app-uptime/ping",                              Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/app-uptime/ping",                              Forged, [401, 403, 403, 403, 404, 404]),
    // Platform-admin calls name no organization: x-org-id means nothing to them and a forged one lends
    // nothing. Reviewers review; the platform users and the maintenance tools are for platform admins only.
    row("GET",    "/api/admin/apps/stats",                             Own,    [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/admin/apps/stats",                             Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/admin/apps/stats",                             Forged, [401, 403, 403, 403, 200, 200]),
    // The platform's audit log: platform admins only, not reviewers.
    row("GET",    "/api/admin/audit-log",                              Own,    [401, 403, 403, 403, 403, 200]),
    row("GET",    "/api/admin/audit-log",                              Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/admin/audit-log",                              Forged, [401, 403, 403, 403, 403, 200]),
    row("GET",    "/api/admin/apps/submitted",                         Own,    [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/admin/apps/submitted",                         Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/admin/apps/submitted",                         Forged, [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/admin/apps/{packageName}",                     Own,    [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/admin/apps/{packageName}",                     Other,  [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/admin/apps/{packageName}",                     Forged, [401, 403, 403, 403, 200, 200]),
    row("GET",    "/api/admin/apps/{packageName}",                     NeverSubmitted, [401, 403, 403, 403, 404, 404]),
    // A fresh SUBMITTED app for each decision: the own organization's, the other's, and for the forged
    // header one of the move target's (outside the state compared).
    row("POST",   "/api/admin/apps/{packageName}/approve",             Own,    [401, 403, 403, 403, 200, 200]),
    row("POST",   "/api/admin/apps/{packageName}/approve",             Other,  [401, 403, 403, 403, 200, 200]),
    row("POST",   "/api/admin/apps/{packageName}/approve",             Forged, [401, 403, 403, 403, 200, 200]),
    row("POST",   "/api/admin/apps/{packageName}/approve",             NeverSubmitted, [401, 403, 403, 403, 404, 404]),
    row("POST",   "/api/admin/apps/{packageName}/reject",              Own,    [401, 403, 403, 403, 200, 200]),
    row("POST",   "/api/admin/apps/{packageName}/reject",              Other,  [401, 403, 403, 403, 200, 200]),
    row("POST",   "/api/admin/apps/{packageName}/reject",              Forged, [401, 403, 403, 403, 200, 200]),
    row("POST",   "/api/admin/apps/{packageName}/reject",              NeverSubmitted, [401, 403, 403, 403, 404, 404]),
    // The first-admin setup link: any signed-in account may present one; the token is the authority, and a
    // made-up one is refused alike for everybody (400 SETUP_LINK_INVALID).
    row("POST",   "/api/admin/setup",                                  Own,    [401, 400, 400, 400, 400, 400]),
    row("POST",   "/api/admin/setup",                                  Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/admin/setup",                                  Forged, [401, 400, 400, 400, 400, 400]),
    row("GET",    "/api/admin/users",                                  Own,    [401, 403, 403, 403, 403, 200]),
    row("GET",    "/api/admin/users",                                  Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/admin/users",                                  Forged, [401, 403, 403, 403, 403, 200]),
    // A fresh address for each grant, a fresh role for each removal.
    row("POST",   "/api/admin/users",                                  Own,    [401, 403, 403, 403, 403, 201]),
    row("POST",   "/api/admin/users",                                  Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/admin/users",                                  Forged, [401, 403, 403, 403, 403, 201]),
    row("DELETE", "/api/admin/users/{email}",                          Own,    [401, 403, 403, 403, 403, 204]),
    row("DELETE", "/api/admin/users/{email}",                          Other,  [NA, NA, NA, NA, NA, NA]),
    row("DELETE", "/api/admin/users/{email}",                          Forged, [401, 403, 403, 403, 403, 204]),
    row("GET",    "/api/admin/debug",                                  Own,    [401, 403, 403, 403, 403, 200]),
    row("GET",    "/api/admin/debug",                                  Other,  [NA, NA, NA, NA, NA, NA]),
    row("GET",    "/api/admin/debug",                                  Forged, [401, 403, 403, 403, 403, 200]),
    // The own row repairs the legacy spellings of the fixture apps; the forged one finds nothing left.
    row("POST",   "/api/admin/fix-app-statuses",                       Own,    [401, 403, 403, 403, 403, 200]),
    row("POST",   "/api/admin/fix-app-statuses",                       Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/admin/fix-app-statuses",                       Forged, [401, 403, 403, 403, 403, 200]),
    // Demo mode is off on this server: a platform admin learns that (404), nobody else gets that far.
    row("POST",   "/api/admin/create-test-submission",                 Own,    [401, 403, 403, 403, 403, 404]),
    row("POST",   "/api/admin/create-test-submission",                 Other,  [NA, NA, NA, NA, NA, NA]),
    row("POST",   "/api/admin/create-test-submission",                 Forged, [401, 403, 403, 403, 403, 404]),
];

/// Documented routes without rows, each for a reason: they touch no organization and are covered by the
/// identity and system tests.
const EXEMPT: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/api/public-config"),
    ("POST", "/api/auth/exchange-token"),
    ("GET", "/api/dev/auth/me"),
    ("PUT", "/api/dev/auth/profile"),
    ("GET", "/api/dev/auth/sessions"),
    ("DELETE", "/api/dev/auth/sessions/{id}"),
    ("GET", "/api/admin/check"),
    // Public by design (an invitation link's page asks before anyone signs in): what it shows is only what
    // the token's holder may see; covered by `orgs::an_invitation_link_is_previewed_…` and its rate limit.
    ("GET", "/api/invites/{token}"),
];

/// Routes that name no organization and are allowed whatever `x-org-id` says (they do not read it): what
/// they change (a new organization) is not a forged header's doing, so their forged rows skip the state
/// comparison. (Accepting an invitation reads no header either; its forged rows are refused and still
/// compared.)
const NAMES_NO_ORG: &[(&str, &str)] = &[
    ("GET", "/api/orgs"),
    ("POST", "/api/orgs"),
    ("POST", "/api/dev/tokens"),
    ("GET", "/api/dev/tokens"),
    ("DELETE", "/api/dev/tokens/{id}"),
    ("POST", "/api/dev/tokens/revoke-all"),
];

/// The own organization's app every non-destructive app row uses.
const OWN_APP: &str = "com.example.own";
/// The other organization's app.
const OTHER_APP: &str = "com.example.other";

/// The address with a pending invitation in both organizations (resent by the allowed rows).
const PENDING: &str = "pending@example.com";
/// The address of the invitations whose tokens the accept rows use (nobody of the callers has it).
const INVITEE: &str = "invitee@example.com";

/// The users and organizations, set up once per server.
pub(crate) struct World {
    pub(crate) stranger: User,
    pub(crate) member: User,
    pub(crate) admin: User,
    pub(crate) reviewer: User,
    pub(crate) platform_admin: User,
    /// The other organization's admin (not a caller of the matrix).
    pub(crate) other_admin: User,
    pub(crate) org: String,
    pub(crate) other_org: String,
    /// A third organization the admin belongs to (the target of allowed moves).
    pub(crate) move_target: String,
    pub(crate) own_accept_token: String,
    pub(crate) other_accept_token: String,
    /// An image of each organization (delivery rows).
    pub(crate) own_image: String,
    pub(crate) other_image: String,
    /// A disabled webhook endpoint of each organization with one delivery (its deliveries are never
    /// leased, so that sending one again is never "in progress"): (endpoint id, delivery id).
    pub(crate) own_webhook: (String, String),
    pub(crate) other_webhook: (String, String),
}

impl World {
    pub(crate) fn user(&self, caller: Caller) -> Option<&User> {
        match caller {
            Caller::Anonymous => None,
            Caller::Stranger => Some(&self.stranger),
            Caller::Member => Some(&self.member),
            Caller::Admin => Some(&self.admin),
            Caller::Reviewer => Some(&self.reviewer),
            Caller::PlatformAdmin => Some(&self.platform_admin),
        }
    }
}

async fn platform_user(app: &TestApp, email: &str, role: &str) -> User {
    sign_up(app, email).await;
    let db = Db::connect(&app.database_url, 1).unwrap();
    admin_cli::run(
        &db,
        AdminCommand::Grant {
            email: email.into(),
            role: role.into(),
        },
    )
    .await
    .unwrap();
    let user = sign_in(app, email).await;
    let (status, check) = get(app, "/api/admin/check", &user).await;
    assert_eq!((status, check["isAdmin"].as_bool()), (200, Some(true)), "{check}");
    assert_eq!(check["role"], role);
    user
}

pub(crate) async fn set_up(app: &TestApp) -> World {
    let admin = sign_up(app, "admin@example.com").await;
    let member = sign_up(app, "member@example.com").await;
    let stranger = sign_up(app, "stranger@example.com").await;
    let other_admin = sign_up(app, "other-admin@example.com").await;
    let reviewer = platform_user(app, "reviewer@example.com", "reviewer").await;
    let platform_admin = platform_user(app, "platform-admin@example.com", "admin").await;

    let org = create_org(app, &admin, "The Organization").await;
    let other_org = create_org(app, &other_admin, "Another Organization").await;
    add_member(app, &admin, &org, &member, "member").await;
    for (owner, id, package) in [
        (&admin, &org, "com.example.own"),
        (&other_admin, &other_org, "com.example.other"),
    ] {
        insert_app(app, id, &owner.id, package);
        invite(app, owner, id, PENDING, "member").await;
    }
    let own_accept_token = invite(app, &admin, &org, INVITEE, "member").await;
    let (status, _) = call(
        app,
        Method::POST,
        &format!("/api/orgs/{other_org}/members"),
        Some(&other_admin.token),
        None,
        Some(&json!({"email": INVITEE})),
    )
    .await;
    assert_eq!(status, 201);
    let other_accept_token = invite_token(app, INVITEE);
    assert_ne!(own_accept_token, other_accept_token);
    // The pending invitations were e-mailed more than ten minutes ago: a resend is not refused as too soon.
    {
        use adapter_db::schema::org_invites::dsl;
        use diesel::prelude::*;
        let db = Db::connect(&app.database_url, 1).unwrap();
        diesel::update(dsl::org_invites)
            .set(dsl::expires_at.eq(dsl::expires_at - 11 * 60_000))
            .execute(&mut *db.connection().unwrap())
            .unwrap();
    }
    let move_target = create_org(app, &admin, "Where Apps Go").await;
    // Publishing needs the organization's name and contact e-mail.
    let (status, body) = crate::org_fixtures::send(
        app,
        Method::PUT,
        &format!("/api/orgs/{org}"),
        &admin,
        json!({"name": "The Organization", "profile": {"contactEmail": "team@example.com"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let own_image = upload_image(app, &admin, &org).await;
    let other_image = upload_image(app, &other_admin, &other_org).await;
    let own_webhook = parked_webhook(app, &admin, &org).await;
    let other_webhook = parked_webhook(app, &other_admin, &other_org).await;

    let world = World {
        stranger,
        member,
        admin,
        reviewer,
        platform_admin,
        other_admin,
        org,
        other_org,
        move_target,
        own_accept_token,
        other_accept_token,
        own_image,
        other_image,
        own_webhook,
        other_webhook,
    };
    // Every signed-in caller lists once now, so that its personal organization exists before the matrix
    // compares states.
    for caller in CALLERS {
        if let Some(user) = world.user(caller) {
            let (status, _) = get(app, "/api/orgs", user).await;
            assert_eq!(status, 200);
        }
    }
    world
}

/// A request of the matrix, and what to do after an allowed one.
pub(crate) struct Request {
    pub(crate) path: String,
    pub(crate) header: Option<String>,
    pub(crate) body: Option<Value>,
    /// Send a multipart image upload instead of a JSON body.
    pub(crate) upload: bool,
    /// Put the member back after the allowed role change.
    pub(crate) restore_member_role: bool,
}

/// A small PNG.
fn png() -> Vec<u8> {
    let picture = image::RgbaImage::from_pixel(4, 4, image::Rgba([10, 120, 200, 255]));
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(picture)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

/// The status and body of an image upload into `org` (`x-org-id`).
pub(crate) async fn upload_as(app: &TestApp, token: Option<&str>, org: &str) -> (u16, Value) {
    let part = reqwest::multipart::Part::bytes(png())
        .file_name("picture.png")
        .mime_str("image/png")
        .unwrap();
    let mut request = app
        .client
        .post(app.url("/api/dev/images/upload"))
        .header("x-org-id", org)
        .multipart(reqwest::multipart::Form::new().part("file", part));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Uploads an image into `org` as `user` and answers its id.
async fn upload_image(app: &TestApp, user: &User, org: &str) -> String {
    let (status, body) = upload_as(app, Some(&user.token), org).await;
    assert_eq!(status, 200, "{body}");
    body["url"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned()
}

/// Registers a fresh app in `org` as `user`.
async fn fresh_app(app: &TestApp, user: &User, org: &str, package: &str) {
    let (status, body) = call(
        app,
        Method::POST,
        "/api/dev/apps/register",
        Some(&user.token),
        Some(org),
        Some(&registration(package)),
    )
    .await;
    assert_eq!(status, 201, "{body}");
}

fn registration(package: &str) -> Value {
    json!({
        "packageName": package, "name": "Fresh", "description": "A fresh app",
        "publicUrl": "https://fresh.example.com", "logoURL": "https://cdn.example.com/logo.png",
    })
}

/// The tester-link token of `package` in `org`, as its admin reads it.
async fn share_token(app: &TestApp, admin: &User, org: &str, package: &str) -> String {
    let (status, body) = call(
        app,
        Method::GET,
        &format!("/api/dev/apps/{package}/share"),
        Some(&admin.token),
        Some(org),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["installUrl"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned()
}

/// Builds the request of `(method, path)` for `target`; `n` makes addresses unique.
pub(crate) async fn request_for(app: &TestApp, world: &World, row: &Row, n: usize) -> Request {
    let (org, org_admin, member_id, only_admin_id, accept_token) = match row.target {
        Target::Own | Target::Forged | Target::NeverSubmitted => (
            &world.org,
            &world.admin,
            &world.member.id,
            &world.admin.id,
            &world.own_accept_token,
        ),
        Target::Other => (
            &world.other_org,
            &world.other_admin,
            &world.other_admin.id,
            &world.other_admin.id,
            &world.other_accept_token,
        ),
    };
    let org_scoped = !row.path.starts_with("/api/orgs");
    let header = match row.target {
        Target::Forged => Some(world.other_org.clone()),
        Target::Own | Target::Other | Target::NeverSubmitted if org_scoped => Some(world.org.clone()),
        Target::Own | Target::Other | Target::NeverSubmitted => None,
    };
    // The app and image the request names: the own organization's, or the other's.
    let (app_owner, app_org, package) = match row.target {
        Target::Own | Target::Forged | Target::NeverSubmitted => {
            (&world.admin, &world.org, OWN_APP.to_owned())
        }
        Target::Other => (&world.other_admin, &world.other_org, OTHER_APP.to_owned()),
    };
    let fresh = format!("com.example.fresh{n}");
    let mut restore_member_role = false;
    let mut upload = false;
    let (path, body) = match (row.method, row.path) {
        ("GET", "/api/dev/apps") => ("/api/dev/apps".to_owned(), None),
        ("POST", "/api/dev/apps/register") => (
            "/api/dev/apps/register".to_owned(),
            Some(registration(&format!("com.example.registered{n}"))),
        ),
        ("GET", "/api/dev/apps/{packageName}") => (format!("/api/dev/apps/{package}"), None),
        ("PUT", "/api/dev/apps/{packageName}") => (
            format!("/api/dev/apps/{package}"),
            Some(json!({"name": format!("Renamed app {n}")})),
        ),
        ("DELETE" | "POST", "/api/dev/apps/{packageName}" | "/api/dev/apps/{packageName}/publish")
        | ("POST", "/api/dev/apps/{packageName}/move-org") => {
            // Each request gets an app of its own (the other organization's stays: nobody may touch it).
            let package = if row.target == Target::Other {
                package
            } else {
                fresh_app(app, app_owner, app_org, &fresh).await;
                fresh
            };
            let suffix = row.path.trim_start_matches("/api/dev/apps/{packageName}");
            let body = (suffix == "/move-org").then(|| json!({"targetOrgId": world.move_target}));
            (format!("/api/dev/apps/{package}{suffix}"), body)
        }
        (
            "POST" | "GET",
            "/api/dev/apps/{packageName}/api-key"
            | "/api/dev/apps/{packageName}/share"
            | "/api/dev/apps/{packageName}/share/reset"
            | "/api/dev/apps/{packageName}/config"
            | "/api/dev/apps/{packageName}/history",
        ) => {
            let suffix = row.path.trim_start_matches("/api/dev/apps/{packageName}");
            let body = (row.method == "POST" && suffix == "/share")
                .then(|| json!({"emails": ["tester@example.com"]}));
            (format!("/api/dev/apps/{package}{suffix}"), body)
        }
        ("PATCH", "/api/dev/apps/{packageName}/visibility") => (
            format!("/api/dev/apps/{package}/visibility"),
            Some(json!({"sharedWithOrganization": true})),
        ),
        ("PATCH", "/api/dev/apps/{packageName}/share-emails") => (
            format!("/api/dev/apps/{package}/share-emails"),
            Some(json!({"emails": ["tester@example.com"]})),
        ),
        ("GET", "/api/permissions/{packageName}") => (format!("/api/permissions/{package}"), None),
        ("PATCH", "/api/permissions/{packageName}") => (
            format!("/api/permissions/{package}"),
            Some(json!({"permissions": [{"type": "MICROPHONE", "description": "To hear"}]})),
        ),
        ("GET", "/api/install/{token}") => {
            let token = share_token(app, app_owner, app_org, &package).await;
            (format!("/api/install/{token}"), None)
        }
        ("POST", "/api/dev/images/upload") => {
            upload = true;
            ("/api/dev/images/upload".to_owned(), None)
        }
        ("DELETE", "/api/dev/images/{imageId}") => {
            let id = upload_image(app, app_owner, app_org).await;
            (format!("/api/dev/images/{id}"), None)
        }
        ("GET", "/api/images/{imageId}") => {
            let id = if row.target == Target::Other {
                &world.other_image
            } else {
                &world.own_image
            };
            (format!("/api/images/{id}"), None)
        }
        ("GET", "/api/dev/apps/{packageName}/health-check") => {
            let package = if row.target == Target::Other {
                package
            } else {
                let loopback = format!("com.example.loopback{n}");
                adapter_db::testing::insert_app(
                    &Db::connect(&app.database_url, 1).unwrap(),
                    app_org,
                    &app_owner.id,
                    &loopback,
                    "https://127.0.0.1:9",
                    "DEVELOPMENT",
                );
                loopback
            };
            (format!("/api/dev/apps/{package}/health-check"), None)
        }
        ("GET", "/api/app-uptime/status") => ("/api/app-uptime/status".to_owned(), None),
        ("GET", "/api/admin/audit-log") => ("/api/admin/audit-log".to_owned(), None),
        ("GET", "/api/app-uptime/get-app-uptime-days") => (
            "/api/app-uptime/get-app-uptime-days?month=2&year=2026".to_owned(),
            None,
        ),
        ("GET", "/api/app-uptime/apps/{packageName}") => {
            (format!("/api/app-uptime/apps/{package}?month=2&year=2026"), None)
        }
        ("GET", "/api/app-uptime/apps/{packageName}/days/{day}") => {
            (format!("/api/app-uptime/apps/{package}/days/2026-02-03"), None)
        }
        ("GET", "/api/app-uptime/ping") => (
            "/api/app-uptime/ping?url=https%3A%2F%2Funregistered.example.com%2Fhealth".to_owned(),
            None,
        ),
        (
            "GET",
            "/api/admin/apps/stats" | "/api/admin/apps/submitted" | "/api/admin/users" | "/api/admin/debug",
        )
        | ("POST", "/api/admin/fix-app-statuses" | "/api/admin/create-test-submission") => {
            (row.path.to_owned(), None)
        }
        (
            "GET" | "POST",
            "/api/admin/apps/{packageName}"
            | "/api/admin/apps/{packageName}/approve"
            | "/api/admin/apps/{packageName}/reject",
        ) => {
            let suffix = row.path.trim_start_matches("/api/admin/apps/{packageName}");
            // The fixture's updatedAt: the revision the reviewer saw.
            let body = (row.method == "POST")
                .then(|| json!({"notes": "Reviewed", "expectedUpdatedAt": "2023-11-14T22:13:20Z"}));
            let (owner, org) = match row.target {
                Target::Own | Target::NeverSubmitted => (&world.admin, &world.org),
                Target::Other => (&world.other_admin, &world.other_org),
                Target::Forged => (&world.admin, &world.move_target),
            };
            let submitted = if row.target == Target::NeverSubmitted {
                // The own organization's app that was never submitted (DEVELOPMENT).
                OWN_APP.to_owned()
            } else {
                let submitted = format!("com.example.submitted{n}");
                adapter_db::testing::insert_app(
                    &Db::connect(&app.database_url, 1).unwrap(),
                    org,
                    &owner.id,
                    &submitted,
                    "https://submitted.example.com",
                    "SUBMITTED",
                );
                submitted
            };
            (format!("/api/admin/apps/{submitted}{suffix}"), body)
        }
        ("POST", "/api/admin/setup") => (
            "/api/admin/setup".to_owned(),
            Some(json!({"token": format!("made-up-setup-token-{n}")})),
        ),
        ("POST", "/api/admin/users") => (
            "/api/admin/users".to_owned(),
            Some(json!({"email": format!("role-{n}@example.com"), "role": "reviewer"})),
        ),
        ("DELETE", "/api/admin/users/{email}") => {
            let email = format!("leaving-{n}@example.com");
            admin_cli::run(
                &Db::connect(&app.database_url, 1).unwrap(),
                AdminCommand::Grant {
                    email: email.clone(),
                    role: "reviewer".into(),
                },
            )
            .await
            .unwrap();
            (format!("/api/admin/users/{email}"), None)
        }
        ("GET", "/api/orgs") => ("/api/orgs".to_owned(), None),
        ("POST", "/api/orgs") => ("/api/orgs".to_owned(), Some(json!({"name": format!("Made {n}")}))),
        ("GET" | "DELETE", "/api/orgs/{orgId}") => (format!("/api/orgs/{org}"), None),
        ("GET", "/api/orgs/{orgId}/audit-log") => (format!("/api/orgs/{org}/audit-log"), None),
        ("PUT", "/api/orgs/{orgId}") => (
            format!("/api/orgs/{org}"),
            Some(json!({"name": format!("Renamed {n}"),
                        "profile": {"contactEmail": "team@example.com"}})),
        ),
        ("PUT", "/api/orgs/{orgId}/two-factor") => (
            format!("/api/orgs/{org}/two-factor"),
            Some(json!({"requireTwoFactor": false})),
        ),
        ("POST", "/api/orgs/{orgId}/members") => (
            format!("/api/orgs/{org}/members"),
            Some(json!({"email": format!("new-{n}@example.com"), "role": "admin"})),
        ),
        ("PATCH", "/api/orgs/{orgId}/members/{memberId}") => {
            restore_member_role = true;
            (
                format!("/api/orgs/{org}/members/{member_id}"),
                Some(json!({"role": "admin"})),
            )
        }
        ("DELETE", "/api/orgs/{orgId}/members/{memberId}") => {
            (format!("/api/orgs/{org}/members/{only_admin_id}"), None)
        }
        ("POST", "/api/orgs/accept/{token}") => (format!("/api/orgs/accept/{accept_token}"), None),
        ("POST", "/api/orgs/{orgId}/invites/resend") => (
            format!("/api/orgs/{org}/invites/resend"),
            Some(json!({"email": PENDING})),
        ),
        ("POST", "/api/orgs/{orgId}/invites/rescind") => {
            // A fresh invitation for each request, made by the organization's own admin.
            let email = format!("rescind-{n}@example.com");
            invite(app, org_admin, org, &email, "member").await;
            (
                format!("/api/orgs/{org}/invites/rescind"),
                Some(json!({"email": email})),
            )
        }
        ("POST", "/api/dev/tokens") => (
            "/api/dev/tokens".to_owned(),
            Some(json!({"name": format!("Matrix {n}"), "scopes": ["apps:read"]})),
        ),
        ("GET", "/api/dev/tokens") => ("/api/dev/tokens".to_owned(), None),
        ("POST", "/api/dev/tokens/revoke-all") => ("/api/dev/tokens/revoke-all".to_owned(), None),
        ("DELETE", "/api/dev/tokens/{id}") => {
            // A fresh token of the organization's admin each time.
            let id = fresh_token(app, org_admin, org).await;
            (format!("/api/dev/tokens/{id}"), None)
        }
        ("GET", "/api/orgs/{orgId}/tokens") => (format!("/api/orgs/{org}/tokens"), None),
        ("DELETE", "/api/orgs/{orgId}/tokens/{id}") => {
            // A fresh token of a member of the organization (the other's admin for the other's).
            let owner = if row.target == Target::Other {
                &world.other_admin
            } else {
                &world.member
            };
            let id = fresh_token(app, owner, org).await;
            (format!("/api/orgs/{org}/tokens/{id}"), None)
        }
        ("GET" | "POST", "/api/orgs/{orgId}/webhooks") => (
            format!("/api/orgs/{org}/webhooks"),
            (row.method == "POST").then(|| {
                json!({"url": "http://127.0.0.1:9/matrix", "description": format!("Matrix {n}"), "events": ["app.approved"]})
            }),
        ),
        ("DELETE", "/api/orgs/{orgId}/webhooks/{id}") => {
            // A fresh endpoint of the organization each time (the other's admin makes the other's).
            let (id, _) = parked_webhook(app, org_admin, org).await;
            (format!("/api/orgs/{org}/webhooks/{id}"), None)
        }
        (
            "GET" | "PATCH" | "POST",
            "/api/orgs/{orgId}/webhooks/{id}"
            | "/api/orgs/{orgId}/webhooks/{id}/rotate-secret"
            | "/api/orgs/{orgId}/webhooks/{id}/test"
            | "/api/orgs/{orgId}/webhooks/{id}/deliveries"
            | "/api/orgs/{orgId}/webhooks/{id}/deliveries/{deliveryId}/retry",
        ) => {
            let (id, delivery) = if row.target == Target::Other {
                &world.other_webhook
            } else {
                &world.own_webhook
            };
            let path = row
                .path
                .replace("{orgId}", org)
                .replace("{id}", id)
                .replace("{deliveryId}", delivery);
            let body = (row.method == "PATCH").then(|| json!({"description": format!("Matrix {n}")}));
            (path, body)
        }
        (method, path) => panic!("the matrix has a row for {method} {path} but no request for it"),
    };
    Request {
        path,
        header,
        body,
        upload,
        restore_member_role,
    }
}

/// A disabled webhook endpoint of `org`, made by its admin, with one test delivery: (endpoint id,
/// delivery id). Disabled, its deliveries are given up without a request (none is ever "in progress").
pub(crate) async fn parked_webhook(app: &TestApp, admin: &User, org: &str) -> (String, String) {
    let base = format!("/api/orgs/{org}/webhooks");
    let (status, body) = send(
        app,
        Method::POST,
        &base,
        admin,
        json!({"url": "http://127.0.0.1:9/parked"}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    let (status, body) = send(
        app,
        Method::PATCH,
        &format!("{base}/{id}"),
        admin,
        json!({"enabled": false}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = send(app, Method::POST, &format!("{base}/{id}/test"), admin, json!({})).await;
    assert_eq!(status, 202, "{body}");
    (id, body["deliveryId"].as_str().unwrap().to_owned())
}

/// A new personal access token of `owner`'s bound to `org`, with every scope: its id.
async fn fresh_token(app: &TestApp, owner: &User, org: &str) -> String {
    let (status, body) = send(
        app,
        Method::POST,
        "/api/dev/tokens",
        owner,
        json!({"name": "matrix", "orgId": org, "scopes": ["apps:read", "apps:write", "apps:publish", "apps:keys"]}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

/// What a wrongly trusted header could change: both organizations as their admins see them, and the
/// caller's organizations.
async fn state(app: &TestApp, world: &World, caller: Option<&User>) -> Value {
    let (_, own) = get(app, &format!("/api/orgs/{}", world.org), &world.admin).await;
    let (_, other) = get(app, &format!("/api/orgs/{}", world.other_org), &world.other_admin).await;
    let mine = match caller {
        Some(user) => get(app, "/api/orgs", user).await.1["data"].clone(),
        None => Value::Null,
    };
    let apps_of = |user: &User, org: &str| {
        let (token, org) = (user.token.clone(), org.to_owned());
        async move {
            call(app, Method::GET, "/api/dev/apps", Some(&token), Some(&org), None)
                .await
                .1
        }
    };
    let own_apps = apps_of(&world.admin, &world.org).await;
    let other_apps = apps_of(&world.other_admin, &world.other_org).await;
    json!([own, other, mine, own_apps, other_apps])
}

/// `(METHOD, path)` of every route the served OpenAPI document describes, but [`EXEMPT`].
async fn documented_routes(app: &TestApp) -> BTreeSet<(String, String)> {
    let doc = app.get_json("/api/openapi.json").await;
    let mut routes = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let method = method.to_uppercase();
            let exempt = EXEMPT.iter().any(|(m, p)| *m == method && p == path);
            if ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&method.as_str()) && !exempt {
                routes.insert((method, path.clone()));
            }
        }
    }
    routes
}

fn check_the_table_covers(documented: &BTreeSet<(String, String)>) {
    let in_table: BTreeSet<(String, String)> = MATRIX
        .iter()
        .map(|r| (r.method.to_owned(), r.path.to_owned()))
        .collect();
    let missing: Vec<_> = documented.difference(&in_table).collect();
    assert!(
        missing.is_empty(),
        "documented routes without rows in the authorization matrix (add rows, or exempt them with a reason): {missing:?}"
    );
    let stale: Vec<_> = in_table.difference(documented).collect();
    assert!(
        stale.is_empty(),
        "matrix rows for routes the server does not have: {stale:?}"
    );
    for (method, path) in &in_table {
        let targets: Vec<Target> = MATRIX
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .map(|r| r.target)
            .collect();
        let staff_app_call = path.starts_with("/api/admin/apps/{packageName}");
        let expected: &[Target] = if staff_app_call {
            &[Own, Other, Forged, NeverSubmitted]
        } else {
            &[Own, Other, Forged]
        };
        assert_eq!(
            targets, expected,
            "{method} {path} needs exactly one row per target"
        );
    }
}

async fn run_matrix(backend: Backend) {
    let app = crate::org_fixtures::spawn_allowing_private(backend).await;
    let documented = documented_routes(&app).await;
    assert!(documented.len() >= 32, "{documented:?}");
    check_the_table_covers(&documented);
    let world = set_up(&app).await;
    let mut failures = Vec::new();
    let mut checked = 0;
    for (index, row) in MATRIX.iter().enumerate() {
        for (column, caller) in CALLERS.iter().enumerate() {
            let expected = row.expected[column];
            if expected == NA {
                continue;
            }
            let n = index * CALLERS.len() + column;
            let request = request_for(&app, &world, row, n).await;
            let user = world.user(*caller);
            let before = if row.target == Target::Forged && !NAMES_NO_ORG.contains(&(row.method, row.path)) {
                Some(state(&app, &world, user).await)
            } else {
                None
            };
            let method = Method::from_bytes(row.method.as_bytes()).unwrap();
            let token = user.map(|u| u.token.as_str());
            let (status, body) = if request.upload {
                let org = request.header.as_deref().unwrap_or_default();
                upload_as(&app, token, org).await
            } else {
                call(
                    &app,
                    method,
                    &request.path,
                    token,
                    request.header.as_deref(),
                    request.body.as_ref(),
                )
                .await
            };
            checked += 1;
            if status != expected {
                failures.push(format!(
                    "{} {} {:?} as {caller:?}: expected {expected}, got {status} {body}",
                    row.method, row.path, row.target
                ));
            }
            if let Some(before) = before {
                let after = state(&app, &world, user).await;
                if before != after {
                    failures.push(format!(
                        "{} {} with a forged x-org-id as {caller:?} changed the state",
                        row.method, row.path
                    ));
                }
            }
            if request.restore_member_role && status == 200 {
                let (status, body) = send(
                    &app,
                    Method::PATCH,
                    &format!("/api/orgs/{}/members/{}", world.org, world.member.id),
                    &world.admin,
                    json!({"role": "member"}),
                )
                .await;
                assert_eq!(status, 200, "{body}");
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{backend:?}: {} of {checked} cells failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The callers' tokens for the token pass, made after the rows ("Revoke all" among them revokes every
    // token of its caller's).
    let tokens = [
        (
            Caller::Member,
            fresh_token_secret(&app, &world.member, &world.org).await,
        ),
        (
            Caller::Admin,
            fresh_token_secret(&app, &world.admin, &world.org).await,
        ),
    ];
    // The allowed requests did what they say, and nobody joined through a token of someone else's.
    let (_, own) = get(&app, &format!("/api/orgs/{}", world.org), &world.admin).await;
    assert_eq!(own["data"]["members"].as_array().unwrap().len(), 2, "{own}");
    let put = MATRIX
        .iter()
        .position(|r| r.method == "PUT" && r.target == Own)
        .unwrap();
    assert_eq!(
        own["data"]["name"],
        format!("Renamed {}", put * CALLERS.len() + 3)
    );
    let (status, _) = accept(&app, &world.stranger, &world.own_accept_token).await;
    assert_eq!(status, 403);
    the_second_factor_requirement_closes_every_org_scoped_row(&app, &world, backend).await;
    a_token_answers_as_its_owner_where_tokens_work_and_is_refused_elsewhere(&app, &world, &tokens, backend)
        .await;
}

/// Where a personal access token works, as the served OpenAPI document declares it (an operation whose
/// `security` lists `accessToken`): (method, path). The token column checks the server does what it says.
async fn token_routes(app: &TestApp) -> Vec<(String, String)> {
    let document = app.get_json("/api/openapi.json").await;
    let mut routes = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let requirements = operation["security"].as_array().into_iter().flatten();
            if requirements.into_iter().any(|r| r.get("accessToken").is_some()) {
                routes.push((method.to_ascii_uppercase(), path.clone()));
            }
        }
    }
    assert_eq!(routes.len(), 15, "the routes that take a token: {routes:?}");
    routes
}

/// A new personal access token of `owner`'s bound to `org`, with every scope: the token itself.
async fn fresh_token_secret(app: &TestApp, owner: &User, org: &str) -> String {
    let (status, body) = send(
        app,
        Method::POST,
        "/api/dev/tokens",
        owner,
        json!({"name": "matrix column", "orgId": org, "scopes": ["apps:read", "apps:write", "apps:publish", "apps:keys"]}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    body["token"].as_str().unwrap().to_owned()
}

/// The matrix's token column: a token of the member's and of the admin's (bound to their organization,
/// every scope) answers what its owner answers on the routes tokens work on — but for another
/// organization named in the path, 403 — and 403 `TOKEN_NOT_ALLOWED` on every other route but the public
/// ones, which read no bearer.
async fn a_token_answers_as_its_owner_where_tokens_work_and_is_refused_elsewhere(
    app: &TestApp,
    world: &World,
    tokens: &[(Caller, String); 2],
    backend: Backend,
) {
    let mut failures = Vec::new();
    let mut checked = 0;
    let token_routes = token_routes(app).await;
    for (index, row) in MATRIX.iter().enumerate() {
        for (caller, token) in tokens {
            let column = CALLERS.iter().position(|c| c == caller).unwrap();
            let as_person = row.expected[column];
            if as_person == NA {
                continue;
            }
            // A public route (the tester page, image delivery) reads no bearer: a token changes nothing.
            let public = row.expected[0] != 401;
            let works = public
                || token_routes
                    .iter()
                    .any(|(method, path)| method == row.method && path == row.path);
            let expected = if !works || (row.path.starts_with("/api/orgs/{orgId}") && row.target == Other) {
                403
            } else {
                as_person
            };
            let n = 200_000 + index * CALLERS.len() + column;
            let request = request_for(app, world, row, n).await;
            let (status, body) = if request.upload {
                upload_as(app, Some(token), request.header.as_deref().unwrap_or_default()).await
            } else {
                let method = Method::from_bytes(row.method.as_bytes()).unwrap();
                call(
                    app,
                    method,
                    &request.path,
                    Some(token),
                    request.header.as_deref(),
                    request.body.as_ref(),
                )
                .await
            };
            checked += 1;
            let refused_as_token = !works && code(&body) != "TOKEN_NOT_ALLOWED";
            if status != expected || refused_as_token {
                failures.push(format!(
                    "{} {} {:?} with the {caller:?}'s token: expected {expected}, got {status} {body}",
                    row.method, row.path, row.target
                ));
            }
        }
    }
    assert!(checked >= 150, "{checked}");
    assert!(
        failures.is_empty(),
        "{backend:?}: {} of {checked} token cells failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Whether the route acts in one organization (its path's, or `x-org-id`'s): those the second-factor
/// requirement closes. Listing and creating organizations, accepting an invitation and the public
/// tester and image pages name none.
fn is_org_scoped(path: &str) -> bool {
    (path.starts_with("/api/orgs/{orgId}")
        || path.starts_with("/api/dev/apps")
        || path.starts_with("/api/dev/images")
        || path.starts_with("/api/permissions/"))
        && !path.starts_with("/api/orgs/accept")
}

/// Sets the organization's requirement behind the API's back (the matrix's admin has no second factor,
/// so could not turn it on).
fn require_two_factor(app: &TestApp, org: &str, required: bool) {
    use adapter_db::schema::organizations::dsl;
    use diesel::prelude::*;
    let db = Db::connect(&app.database_url, 1).unwrap();
    diesel::update(dsl::organizations.filter(dsl::id.eq(org)))
        .set(dsl::require_two_factor.eq(required))
        .execute(&mut *db.connection().unwrap())
        .unwrap();
}

/// The matrix's second-factor dimension (PRODUCT.md §1a): with the organization requiring a second factor,
/// its member and admin (whose sessions have not passed one) are refused on every org-scoped row with 403
/// `ORG_MFA_REQUIRED`, but leaving: the admin's own leave still reaches the only-admin guard (409).
async fn the_second_factor_requirement_closes_every_org_scoped_row(
    app: &TestApp,
    world: &World,
    backend: Backend,
) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (index, row) in MATRIX.iter().enumerate() {
        if row.target != Own || !is_org_scoped(row.path) {
            continue;
        }
        for (column, caller) in CALLERS.iter().enumerate() {
            if !matches!(caller, Caller::Member | Caller::Admin) || row.expected[column] == NA {
                continue;
            }
            let n = 100_000 + index * CALLERS.len() + column;
            // Built while the organization is open (building may register a fresh app as the admin).
            let request = request_for(app, world, row, n).await;
            require_two_factor(app, &world.org, true);
            let user = world.user(*caller);
            let token = user.map(|u| u.token.as_str());
            let (status, body) = if request.upload {
                upload_as(app, token, request.header.as_deref().unwrap_or_default()).await
            } else {
                let method = Method::from_bytes(row.method.as_bytes()).unwrap();
                call(
                    app,
                    method,
                    &request.path,
                    token,
                    request.header.as_deref(),
                    request.body.as_ref(),
                )
                .await
            };
            require_two_factor(app, &world.org, false);
            checked += 1;
            let leaving = row.method == "DELETE" && row.path == "/api/orgs/{orgId}/members/{memberId}";
            let expected = if leaving && *caller == Caller::Admin {
                (409, "ONLY_ADMIN")
            } else {
                (403, "ORG_MFA_REQUIRED")
            };
            if (status, code(&body)) != expected {
                failures.push(format!(
                    "{} {} as {caller:?} in an organization requiring a second factor: expected {expected:?}, got {status} {body}",
                    row.method, row.path
                ));
            }
        }
    }
    assert!(checked >= 40, "{checked}");
    assert!(
        failures.is_empty(),
        "{backend:?}: {} of {checked} cells failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn the_authorization_matrix_holds_on_sqlite() {
    run_matrix(Backend::Sqlite).await;
}

#[tokio::test]
async fn the_authorization_matrix_holds_on_postgres() {
    run_matrix(Backend::Postgres).await;
}

#[tokio::test]
async fn an_org_header_that_disagrees_is_refused_and_changes_nothing() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let alice = sign_up(&app, "alice@example.com").await;
        let olga = sign_up(&app, "olga@example.com").await;
        let mine = create_org(&app, &alice, "Acme").await;
        let also_mine = create_org(&app, &alice, "Acme Two").await;
        let theirs = create_org(&app, &olga, "Other").await;
        let path = format!("/api/orgs/{mine}");
        let form = json!({"name": "Renamed", "profile": {"contactEmail": "dev@acme.example.com"}});
        let (_, before) = get(&app, &path, &alice).await;

        for (header, status, expected) in [
            (theirs.as_str(), 403, "FORBIDDEN"),
            (also_mine.as_str(), 403, "FORBIDDEN"),
            ("not-an-id", 400, "ORG_MALFORMED"),
        ] {
            let (got, body) = call(
                &app,
                Method::PUT,
                &path,
                Some(&alice.token),
                Some(header),
                Some(&form),
            )
            .await;
            assert_eq!(
                (got, code(&body)),
                (status, expected),
                "{backend:?} {header}: {body}"
            );
            let (got, body) = call(
                &app,
                Method::DELETE,
                &path,
                Some(&alice.token),
                Some(header),
                None,
            )
            .await;
            assert_eq!(got, status, "{body}");
        }
        let (_, after) = get(&app, &path, &alice).await;
        assert_eq!(before, after, "a refused request changed nothing");
        // Where no path names an organization the header is not read: one of the caller's or of others',
        // the list is the caller's.
        let (status, _) = call(
            &app,
            Method::GET,
            "/api/orgs",
            Some(&alice.token),
            Some(&also_mine),
            None,
        )
        .await;
        assert_eq!(status, 200);
        let (status, _) = call(
            &app,
            Method::GET,
            "/api/orgs",
            Some(&alice.token),
            Some(&theirs),
            None,
        )
        .await;
        assert_eq!(status, 200);
        // The header agreeing with the path is accepted.
        let (status, body) = call(
            &app,
            Method::PUT,
            &path,
            Some(&alice.token),
            Some(&mine),
            Some(&form),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["name"], "Renamed");
    }
}
