//! `POST /api/auth/exchange-token`: an identity access token exchanged for a core token.

use chrono::{DateTime, TimeZone, Utc};

use super::CoreTokenService;
use crate::identity::core_token::AuthError;
use crate::identity::sessions::tokens::{CoreTokenClaims, TokenError};

/// A signed core token and when it expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreToken {
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

impl CoreTokenService {
    /// Verifies an identity access token (built-in or hosted) and signs a core token for the same user,
    /// valid one hour but never longer than the access token. A core token cannot be exchanged for
    /// another, and neither can the access token of a session that was signed out, revoked, or has expired.
    ///
    /// # Errors
    /// [`AuthError::Unauthenticated`] when the identity token is not valid or its session is over;
    /// [`AuthError::EmailInUse`] for a hosted user whose e-mail another local account has;
    /// [`AuthError::Signing`]; [`AuthError::Repo`].
    pub async fn exchange(&self, identity_access_token: &str) -> Result<CoreToken, AuthError> {
        let now = self.clock.now();
        let claims = self
            .signer
            .verify_access(identity_access_token.trim(), now)
            .await
            .and_then(|claims| claims.check(now).map(|()| claims))
            .map_err(AuthError::Unauthenticated)?;
        let Some(session) = self.session_of(&claims, now, None).await? else {
            return Err(AuthError::Unauthenticated(TokenError::Invalid));
        };
        if let Some(hosted) = &self.hosted {
            hosted.ensure(&claims).await?;
        }
        let mut core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), &self.issuer, now);
        core.exp = core.exp.min(claims.exp);
        core.aal = session.aal(&claims).code().to_owned();
        core.auth_time = session.first_factor_at(&claims).map(|at| at.timestamp());
        if self.sessions.is_some() {
            core.sid = Some(claims.session_id);
        }
        let token = self.signer.sign_core(&core).await.map_err(AuthError::Signing)?;
        let expires_at = Utc.timestamp_opt(core.exp, 0).single().unwrap_or(now);
        Ok(CoreToken { token, expires_at })
    }
}
