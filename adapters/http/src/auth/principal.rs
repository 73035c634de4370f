//! [`Principal`]: the caller of a product API request, from `Authorization: Bearer <token>` where the token
//! is a core token or an identity access token. Refresh tokens, API keys, e-mail link tokens, invitation
//! and share tokens are opaque strings that neither verification accepts: 401 in the envelope of
//! PRODUCT.md §6.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use domain::common::{Caller, ClientOrigin};
use std::future::Future;
use std::pin::Pin;

use super::ProductAuth;
use crate::ApiError;
use crate::client_ip::TrustedProxies;
use crate::identity::bearer_token;

pub const SIGN_IN_REQUIRED: &str = "Please sign in to continue.";
pub const SESSION_EXPIRED: &str = "Your session has expired. Please sign in again.";
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

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Principal(pub Caller);

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let auth = request.app_data::<web::Data<ProductAuth>>().cloned();
        let token = bearer_token(request).map(str::to_owned);
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
            match auth.core_tokens.authenticate(&token).await {
                Ok(mut caller) => {
                    caller.origin = origin_of(&request, &auth.proxies);
                    Ok(Self(caller))
                }
                Err(error) => Err(ApiError::from(error)),
            }
        })
    }
}
