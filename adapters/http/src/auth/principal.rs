//! [`Principal`]: the caller of a product API request, from `Authorization: Bearer <token>` where the token
//! is a core token or an identity access token. Refresh tokens, API keys, e-mail link tokens, invitation
//! and share tokens are opaque strings that neither verification accepts: 401 in the envelope of
//! PRODUCT.md §6.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use domain::common::{Caller, ClientOrigin, OrgId};
use domain::identity::Authenticated;
use domain::orgs::MembershipRead;
use std::future::Future;
use std::pin::Pin;

use super::ProductAuth;
use super::token_routes::{TokenRoute, token_route};
use crate::ApiError;
use crate::client_ip::TrustedProxies;
use crate::identity::bearer_token;

pub const SIGN_IN_REQUIRED: &str = "Please sign in to continue.";
pub const SESSION_EXPIRED: &str = "Your session has expired. Please sign in again.";
/// The code of a 403 that asks the session to pass the account's second factor first.
pub const MFA_REQUIRED: &str = "MFA_REQUIRED";
pub const STAFF_MFA_REQUIRED: &str = "Platform staff confirm it's them with a second factor: add one on Account Security, then sign in with it.";
pub const TOKEN_NOT_ALLOWED: &str = "Access tokens cannot be used for this: sign in to the portal to do it.";
pub const EMAIL_IN_USE: &str =
    "This e-mail address belongs to another account on this server. Ask an administrator for help.";

/// Where the request came from: the client's address through the trusted proxies, and its user agent.
#[must_use]
pub fn origin_of(request: &HttpRequest, proxies: &TrustedProxies) -> ClientOrigin {
    ClientOrigin {
        via_token: None,
        client_ip: proxies.client_address(request).map(|ip| ip.to_string()),
        user_agent: request
            .headers()
            .get(actix_web::http::header::USER_AGENT)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
    }
}

/// Whether `path` serves only platform staff (`/api/admin` and `/api/app-uptime`, and below): a staff
/// member whose session may not use the role yet is told how to get it there rather than refused as a
/// developer. (The rule itself is the role's: such a session carries none, whatever the route.)
fn is_staff_api(path: &str) -> bool {
    ["/api/admin", "/api/app-uptime"].iter().any(|prefix| {
        path == *prefix
            || path
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Principal(pub Caller);

/// The authenticated caller of a route that needs what the session proves (its level, when it signed in):
/// creating an access token. Never a personal access token (such routes refuse them).
#[derive(Debug, Clone)]
pub struct SessionPrincipal(pub Authenticated);

impl FromRequest for SessionPrincipal {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let credentials = Credentials::of(request);
        Box::pin(async move {
            let (authenticated, _) = credentials.authenticate(None).await?;
            Ok(Self(authenticated))
        })
    }
}

/// The built-in identity service's session the caller's bearer belongs to (`None` with a hosted identity
/// service), left in the request's extensions by [`Principal`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallerSession(pub Option<uuid::Uuid>);

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let credentials = Credentials::of(request);
        Box::pin(async move {
            let (authenticated, _) = credentials.authenticate(None).await?;
            Ok(Self(authenticated.caller))
        })
    }
}

/// What authenticating a request needs of it, taken from the request before its future runs.
pub(super) struct Credentials {
    auth: Option<web::Data<ProductAuth>>,
    token: Option<String>,
    staff_api: bool,
    request: HttpRequest,
}

impl Credentials {
    pub(super) fn of(request: &HttpRequest) -> Self {
        Self {
            auth: request.app_data::<web::Data<ProductAuth>>().cloned(),
            token: bearer_token(request).map(str::to_owned),
            staff_api: is_staff_api(request.path()),
            request: request.clone(),
        }
    }

    /// Authenticates the request's bearer: the caller (with the request's origin) and the session's
    /// assurance level, which the organization doors ([`super::OrgScope`], [`super::OrgMember`]) hold
    /// against an organization's second-factor requirement without reading anything more; for a request
    /// naming the organization `org`, also the caller's membership in it (with the organization's
    /// requirement) as read in the same statement as the session (`None` when sessions are not known
    /// here: the member directory is then asked).
    pub(super) async fn authenticate(
        self,
        org: Option<OrgId>,
    ) -> Result<(Authenticated, Option<MembershipRead>), ApiError> {
        let Some(auth) = self.auth else {
            return Err(ApiError::Internal(
                "the product authentication is not configured".into(),
            ));
        };
        let Some(token) = self.token else {
            return Err(ApiError::Unauthorized(SIGN_IN_REQUIRED.into()));
        };
        // What a personal access token may do on this route: looked up for a token only (a session's request
        // never pays for the route's match pattern), before anything is read and again for whatever the
        // domain authenticated as a token.
        let route = || token_route(self.request.method(), self.request.match_pattern().as_deref());
        let refused = || ApiError::ForbiddenUntil {
            code: "TOKEN_NOT_ALLOWED",
            message: TOKEN_NOT_ALLOWED.into(),
        };
        if token.trim_start().starts_with(domain::tokens::format::PREFIX) && route() == TokenRoute::Refused {
            return Err(refused());
        }
        let origin = origin_of(&self.request, &auth.proxies);
        let (mut authenticated, membership) = auth
            .core_tokens
            .authenticate_request(&token, org, origin.client_ip.as_deref())
            .await?;
        if let Some(used) = authenticated.caller.origin.via_token.as_ref() {
            match route() {
                TokenRoute::Refused => return Err(refused()),
                TokenRoute::Needs(scope) if !used.scopes.allows(scope) => {
                    return Err(ApiError::ForbiddenUntil {
                        code: "TOKEN_SCOPE_MISSING",
                        message: format!(
                            "This access token lacks the {} scope this request needs.",
                            scope.code()
                        ),
                    });
                }
                TokenRoute::Needs(_) | TokenRoute::AnyScope => {}
            }
        }
        // Staff use cases need a session that passed a second factor (PORTAL_STAFF_MFA=required).
        if self.staff_api && authenticated.withheld_role.is_some() {
            return Err(ApiError::ForbiddenUntil {
                code: MFA_REQUIRED,
                message: STAFF_MFA_REQUIRED.into(),
            });
        }
        authenticated.caller.origin = ClientOrigin {
            via_token: authenticated.caller.origin.via_token.take(),
            ..origin
        };
        // The caller's session, for the handlers that mark or spare it (the sessions list).
        self.request
            .extensions_mut()
            .insert(CallerSession(authenticated.session_id));
        Ok((authenticated, membership))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_staff_api_is_api_admin_and_below_only() {
        assert!(is_staff_api("/api/admin/apps"));
        assert!(is_staff_api("/api/admin"));
        assert!(is_staff_api("/api/app-uptime/status"));
        assert!(!is_staff_api("/api/app-uptimes"));
        assert!(!is_staff_api("/api/administrators"));
        assert!(!is_staff_api("/api/apps"));
    }
}
