//! [`Principal`]: the caller of a product API request, from `Authorization: Bearer <token>` where the token
//! is a core token or an identity access token. Refresh tokens, API keys, e-mail link tokens, invitation
//! and share tokens are opaque strings that neither verification accepts: 401 in the envelope of
//! PRODUCT.md §6.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use domain::common::{Caller, ClientOrigin};
use domain::identity::Authenticated;
use std::future::Future;
use std::pin::Pin;

use super::ProductAuth;
use crate::ApiError;
use crate::client_ip::TrustedProxies;
use crate::identity::bearer_token;

pub const SIGN_IN_REQUIRED: &str = "Please sign in to continue.";
pub const SESSION_EXPIRED: &str = "Your session has expired. Please sign in again.";
/// The code of a 403 that asks the session to pass the account's second factor first.
pub const MFA_REQUIRED: &str = "MFA_REQUIRED";
pub const STAFF_MFA_REQUIRED: &str = "Platform staff confirm it's them with a second factor: add one on Account Security, then sign in with it.";
pub const EMAIL_IN_USE: &str =
    "This e-mail address belongs to another account on this server. Ask an administrator for help.";

/// Where the request came from: the client's address through the trusted proxies, and its user agent.
#[must_use]
pub fn origin_of(request: &HttpRequest, proxies: &TrustedProxies) -> ClientOrigin {
    ClientOrigin {
        client_ip: proxies.client_address(request).map(|ip| ip.to_string()),
        user_agent: request
            .headers()
            .get(actix_web::http::header::USER_AGENT)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
    }
}

/// Whether `path` is the staff API (`/api/admin` and below).
fn is_staff_api(path: &str) -> bool {
    path == "/api/admin" || path.starts_with("/api/admin/")
}

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Principal(pub Caller);

/// The built-in identity service's session the caller's bearer belongs to (`None` with a hosted identity
/// service), left in the request's extensions by [`Principal`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallerSession(pub Option<uuid::Uuid>);

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let authenticated = authenticate(request);
        Box::pin(async move { Ok(Self(authenticated.await?.caller)) })
    }
}

/// Authenticates the request's bearer: the caller (with the request's origin) and the session's assurance
/// level, which the organization doors ([`super::OrgScope`], [`super::OrgMember`]) hold against an
/// organization's second-factor requirement without reading anything more.
pub(crate) fn authenticate(
    request: &HttpRequest,
) -> Pin<Box<dyn Future<Output = Result<Authenticated, ApiError>>>> {
    let auth = request.app_data::<web::Data<ProductAuth>>().cloned();
    let token = bearer_token(request).map(str::to_owned);
    let staff_api = is_staff_api(request.path());
    let request = request.clone();
    Box::pin(async move {
        let Some(auth) = auth else {
            return Err(ApiError::Internal(
                "the product authentication is not configured".into(),
            ));
        };
        let Some(token) = token else {
            return Err(ApiError::Unauthorized(SIGN_IN_REQUIRED.into()));
        };
        let mut authenticated = auth
            .core_tokens
            .authenticate_at_level(&token)
            .await
            .map_err(ApiError::from)?;
        // The staff API (PORTAL_STAFF_MFA=required): staff need a session that passed a second factor.
        if staff_api && !auth.core_tokens.staff_level_met(&authenticated) {
            return Err(ApiError::ForbiddenUntil {
                code: MFA_REQUIRED,
                message: STAFF_MFA_REQUIRED.into(),
            });
        }
        authenticated.caller.origin = origin_of(&request, &auth.proxies);
        // The caller's session, for the handlers that mark or spare it (the sessions list).
        request
            .extensions_mut()
            .insert(CallerSession(authenticated.session_id));
        Ok(authenticated)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_staff_api_is_api_admin_and_below_only() {
        assert!(is_staff_api("/api/admin/apps"));
        assert!(is_staff_api("/api/admin"));
        assert!(!is_staff_api("/api/administrators"));
        assert!(!is_staff_api("/api/apps"));
    }
}
