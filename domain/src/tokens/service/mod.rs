//! The use cases of personal access tokens: create (from a session at the level of any security change,
//! e-mailing the owner), list and revoke one's own, list and revoke the tokens that act in an organization
//! (its admins), record expiries, and authenticate a request that presents one.
//!
//! The service, its error and what its use cases share are here; creating a token is in `create.rs`, the
//! owner's and the admins' lists and revocations (and recorded expiries) in `manage.rs`, authenticating a
//! request in `authenticate.rs`.

mod authenticate;
mod create;
mod manage;

pub use create::{CreatedToken, NewAccessToken};

use chrono::{DateTime, Utc};
use std::sync::Arc;

use super::models::AccessToken;
use super::ports::AccessTokenRepository;
use crate::audit::{AuditAction, AuditEntry, AuditTarget, AuditTargetKind};
use crate::common::{Caller, Clock, FieldErrors, OrgId, RepoError, SecretGenerator};
use crate::identity::DigestKey;
use crate::identity::assurance::AssuranceRules;
use crate::orgs::{ActingError, MemberDirectory, OrgRepository};

/// What the access token use cases can fail with.
#[derive(Debug, thiserror::Error)]
pub enum AccessTokenError {
    /// 400: a field is wrong (`name`, `orgId`, `scopes`, `expiresInDays`).
    #[error("{0}")]
    Validation(FieldErrors),
    /// 403 `RECENT_SIGN_IN_NEEDED`: an account without a second factor creates tokens from a recent sign-in.
    #[error("Sign in again to create an access token: your last sign-in was more than 10 minutes ago.")]
    RecentSignInNeeded,
    /// 403 `MFA_REQUIRED`: the account has a second factor and the session has not passed it.
    #[error("Confirm it's you with your second factor to create an access token.")]
    SecondFactorNeeded,
    /// 404: no such token for this caller.
    #[error("This access token does not exist, or is not one you can manage.")]
    NotFound,
    /// 403: only an organization's admins manage the tokens that act in it.
    #[error("Only the organization's admins manage the access tokens that act in it.")]
    NotAdmin,
    /// 409: the token is revoked already.
    #[error("This access token was revoked already.")]
    AlreadyRevoked,
    #[error(transparent)]
    Acting(#[from] ActingError),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

pub use crate::identity::core_token::TokenRefusal;

/// The access token use cases.
pub struct AccessTokenService {
    tokens: Arc<dyn AccessTokenRepository>,
    members: Arc<dyn MemberDirectory>,
    orgs: Arc<dyn OrgRepository>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    key: DigestKey,
    public_url: String,
    /// The assurance rule (its settings as the product requests' authentication has them).
    rules: AssuranceRules,
}

impl AccessTokenService {
    #[must_use]
    pub fn new(
        tokens: Arc<dyn AccessTokenRepository>,
        members: Arc<dyn MemberDirectory>,
        orgs: Arc<dyn OrgRepository>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        key: DigestKey,
        public_url: String,
    ) -> Self {
        Self {
            tokens,
            members,
            orgs,
            clock,
            secrets,
            key,
            public_url,
            rules: AssuranceRules::default(),
        }
    }

    /// The assurance rule with the deployment's settings (the same value the request authentication
    /// uses).
    #[must_use]
    pub const fn with_rules(mut self, rules: AssuranceRules) -> Self {
        self.rules = rules;
        self
    }

    /// Audit entries about `token` by `caller`: one in each organization the token may act in.
    async fn entries(
        &self,
        caller: &Caller,
        action: AuditAction,
        token: &AccessToken,
        now: DateTime<Utc>,
    ) -> Result<Vec<AuditEntry>, RepoError> {
        Ok(self
            .orgs_of(token)
            .await?
            .into_iter()
            .map(|org| {
                AuditEntry::by(self.secrets.as_ref(), caller, action, now)
                    .in_org(org)
                    .on(target(token))
                    .change("scopes", serde_json::Value::Null, token.scopes.to_stored())
            })
            .collect())
    }

    /// The organizations `token` may act in now.
    async fn orgs_of(&self, token: &AccessToken) -> Result<Vec<OrgId>, RepoError> {
        Ok(match token.org_id {
            Some(org) => vec![org],
            None => self
                .orgs
                .list_for_user(token.user_id)
                .await?
                .into_iter()
                .map(|membership| membership.organization.id)
                .collect(),
        })
    }
}

fn target(token: &AccessToken) -> AuditTarget {
    AuditTarget::new(AuditTargetKind::AccessToken, token.id.to_string()).with_label(token.name.clone())
}
