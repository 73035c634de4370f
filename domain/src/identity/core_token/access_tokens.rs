//! How the product's authentication reaches personal access tokens without knowing the context that makes
//! them: [`AccessTokenCheck`], implemented by the tokens context's service and handed to
//! [`super::CoreTokenService::with_access_tokens`].

use async_trait::async_trait;

use crate::common::{EmailAddress, OrgId, RepoError, TokenUse, UserId};
use crate::identity::assurance::{Protection, SessionProof};
use crate::membership::OrgRole;

/// Why a presented access token does not authenticate a request (each a 401 whose message says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenRefusal {
    #[error("This access token is mistyped or cut short (its checksum does not match): copy it again whole.")]
    Mistyped,
    #[error("This access token is not known here: it may have been deleted, or belong to another server.")]
    Unknown,
    #[error("This access token was revoked: create a new one on Access Tokens.")]
    Revoked,
    #[error("This access token has expired: create a new one on Access Tokens.")]
    Expired,
    /// Its recorded proof is below what its owner's account needs now (made by a session that had not
    /// passed a second factor, which the account has since, or lowered when the factor that session
    /// passed was removed).
    #[error(
        "This access token was made by a session that had not passed your second factor, which your account \
         has now: create a new one on Access Tokens."
    )]
    BelowAccountLevel,
}

/// A personal access token that authenticated: what it acts as, with the proof it recorded when it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedToken {
    /// The token as audit entries name it (id, name, its one organization, its scopes).
    pub used: TokenUse,
    pub owner: UserId,
    pub owner_email: EmailAddress,
    /// The proof of the session that made it.
    pub made_with: SessionProof,
    /// What protects the owner's account now.
    pub protection: Protection,
    /// For a request naming an organization: the owner's standing there.
    pub org: Option<StandingInOrg>,
}

/// The owner's standing in the organization a request names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StandingInOrg {
    pub org: OrgId,
    /// `None`: not a member (or no such organization).
    pub role: Option<OrgRole>,
    pub requires_two_factor: bool,
    pub apps_revision: u64,
}

/// Checks a bearer that has the form of a personal access token.
#[async_trait]
pub trait AccessTokenCheck: Send + Sync {
    /// The token `bearer` names, for a request naming `org` (when it does), from `client_ip`.
    ///
    /// # Errors
    /// `Ok(Err(refusal))` when it does not authenticate; a store failure.
    async fn check(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<Result<CheckedToken, TokenRefusal>, RepoError>;
}
