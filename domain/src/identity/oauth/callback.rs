//! Step 2 of the flow: the provider sends the browser back to `GET|POST /auth/v1/callback`, the flow named
//! by `state` is taken, the provider's code exchanged, and an auth code issued for the flow's `redirect_to`.

use chrono::Duration;

use super::{
    AUTH_CODE_TTL_MINUTES, AuthCode, CodeExchange, OAuthError, OAuthFlow, OAuthService, SECRET_BYTES,
};
use crate::common::secrets::digest_secret;

/// Parameters of `GET|POST /callback`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackRequest<'a> {
    pub state: Option<&'a str>,
    pub code: Option<&'a str>,
    /// The provider's error (`access_denied`, …) and its description.
    pub error: Option<&'a str>,
    pub error_description: Option<&'a str>,
    /// Apple's `user` form field.
    pub user: Option<&'a str>,
}

/// Where the callback sends the browser, and with what.
#[derive(Debug)]
pub struct CallbackOutcome {
    /// The flow's `redirect_to`, or the portal's home when the flow is unknown.
    pub redirect_to: String,
    /// The auth code for `?code=`, or the error.
    pub result: Result<String, OAuthError>,
}

impl OAuthService {
    /// `GET|POST /callback`: takes the flow named by `state`, exchanges the provider's code, and issues the
    /// auth code for the flow's `redirect_to`.
    pub async fn callback(&self, request: CallbackRequest<'_>) -> CallbackOutcome {
        let Some(state) = request.state.map(str::trim).filter(|s| !s.is_empty()) else {
            return self.refused(OAuthError::StateMissing);
        };
        let flow = match self.flows.take_flow(&digest_secret(state)).await {
            Ok(Some(flow)) => flow,
            Ok(None) => return self.refused(OAuthError::StateUnknown),
            Err(error) => return self.refused(error.into()),
        };
        let result = self.finish_callback(&flow, &request).await;
        CallbackOutcome {
            redirect_to: flow.redirect_to,
            result,
        }
    }

    fn refused(&self, error: OAuthError) -> CallbackOutcome {
        CallbackOutcome {
            redirect_to: self.home(),
            result: Err(error),
        }
    }

    async fn finish_callback(
        &self,
        flow: &OAuthFlow,
        request: &CallbackRequest<'_>,
    ) -> Result<String, OAuthError> {
        let now = self.clock.now();
        if now >= flow.expires_at {
            return Err(OAuthError::StateExpired);
        }
        if let Some(error) = request.error.map(str::trim).filter(|e| !e.is_empty()) {
            return Err(OAuthError::ProviderDenied {
                error: oauth_error_name(error),
                description: request
                    .error_description
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .unwrap_or("The sign-in provider did not complete the sign-in")
                    .chars()
                    .take(200)
                    .collect(),
            });
        }
        let code = request
            .code
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .ok_or(OAuthError::CodeMissing)?;
        let provider = self.provider(&flow.provider)?;
        let profile = provider
            .exchange(&CodeExchange {
                code: code.to_owned(),
                pkce_verifier: flow.provider_verifier.clone(),
                nonce: flow.nonce.clone(),
                redirect_uri: self.config.callback_url(),
                user_hint: request.user.map(str::to_owned),
            })
            .await?;
        let auth_code = self.secrets.token_hex(SECRET_BYTES);
        let now = self.clock.now();
        self.flows
            .insert_code(&AuthCode {
                code_hash: digest_secret(&auth_code),
                challenge: flow.challenge.clone(),
                profile,
                created_at: now,
                expires_at: now + Duration::minutes(AUTH_CODE_TTL_MINUTES),
            })
            .await?;
        Ok(auth_code)
    }
}

/// The provider's `error` reduced to an OAuth error name (`[a-z_]`, at most 40 characters).
pub(super) fn oauth_error_name(error: &str) -> String {
    let name: String = error
        .chars()
        .filter(|c| c.is_ascii_lowercase() || *c == '_')
        .take(40)
        .collect();
    if name.is_empty() {
        "access_denied".to_owned()
    } else {
        name
    }
}
