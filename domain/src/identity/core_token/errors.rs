//! What authenticating a product request or exchanging a token can fail with.

use crate::common::{RepoError, UserId};
use crate::identity::core_token::TokenRefusal;
use crate::identity::core_token::hosted::HostedAccountError;
use crate::identity::sessions::tokens::TokenError;

/// What authenticating a product request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// 401: no token, or not a valid core or identity access token; the source says whether it expired.
    #[error("Invalid or expired token")]
    Unauthenticated(#[source] TokenError),
    /// 500: the core token could not be signed.
    #[error("could not sign the core token")]
    Signing(#[source] TokenError),
    /// 403 `MFA_REQUIRED`: the account has a verified second factor and the session has not passed it
    /// (`aal1`); the client should challenge the factor, then exchange the raised session's token again.
    #[error("Confirm it's you with your second factor to continue.")]
    MfaRequired,
    /// 409: a hosted user whose e-mail belongs to another local account (see
    /// [`HostedAccounts`](super::hosted::HostedAccounts)).
    #[error("This e-mail address belongs to another account on this server.")]
    EmailInUse { user: UserId },
    /// 401: a personal access token that does not authenticate (the refusal says why: mistyped, unknown,
    /// revoked, expired).
    #[error("{0}")]
    AccessToken(TokenRefusal),
    /// 403: a personal access token bound to another organization than the one the request names.
    #[error("This access token works only in its own organization.")]
    TokenOutsideItsOrg,
    /// 500: the platform-admin or account store failed.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl From<HostedAccountError> for AuthError {
    fn from(error: HostedAccountError) -> Self {
        match error {
            HostedAccountError::EmailInUse { user } => Self::EmailInUse { user },
            HostedAccountError::Repo(cause) => Self::Repo(cause),
        }
    }
}

impl AuthError {
    /// Whether the token was well signed but expired (the client should refresh and exchange again).
    #[must_use]
    pub fn is_expired(&self) -> bool {
        matches!(self, Self::Unauthenticated(TokenError::Expired))
    }
}
