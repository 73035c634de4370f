//! The owner's tokens (list, revoke one or all), the tokens that act in an organization (its admins list
//! and revoke them), and the expiries recorded in the audit log.

use uuid::Uuid;

use super::{AccessTokenError, AccessTokenService, target};
use crate::audit::{AuditAction, AuditEntry};
use crate::common::Caller;
use crate::orgs::{ActingMember, OrgRole};
use crate::tokens::models::{AccessToken, OwnedToken, TokenStatus};

impl AccessTokenService {
    /// The token's status now, by this service's clock (the HTTP layer never reads a clock of its own).
    #[must_use]
    pub fn status_of(&self, token: &AccessToken) -> TokenStatus {
        token.status(self.clock.now())
    }

    /// The caller's tokens, newest first.
    ///
    /// # Errors
    /// A store failure.
    pub async fn list_own(&self, caller: &Caller) -> Result<Vec<AccessToken>, AccessTokenError> {
        Ok(self.tokens.list_for_user(caller.user_id).await?)
    }

    /// Revokes one of the caller's tokens.
    ///
    /// # Errors
    /// [`AccessTokenError::NotFound`], [`AccessTokenError::AlreadyRevoked`], a store failure.
    pub async fn revoke_own(&self, caller: &Caller, id: Uuid) -> Result<AccessToken, AccessTokenError> {
        let token = self
            .tokens
            .find(id)
            .await?
            .filter(|t| t.user_id == caller.user_id)
            .ok_or(AccessTokenError::NotFound)?;
        self.revoke(caller, token).await
    }

    /// Revokes every token of the caller's that still works (after a recovery: "Revoke all"); answers how
    /// many. Each is revoked and audited as one revoked alone (one that another request revoked meanwhile
    /// is passed over).
    ///
    /// # Errors
    /// A store failure.
    pub async fn revoke_all_own(&self, caller: &Caller) -> Result<usize, AccessTokenError> {
        let now = self.clock.now();
        let mut revoked = 0;
        for token in self.tokens.list_for_user(caller.user_id).await? {
            if token.status(now) != TokenStatus::Active {
                continue;
            }
            match self.revoke(caller, token).await {
                Ok(_) => revoked += 1,
                Err(AccessTokenError::AlreadyRevoked) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(revoked)
    }

    /// The tokens that act in the member's organization (its admins only).
    ///
    /// # Errors
    /// [`AccessTokenError::NotAdmin`], a store failure.
    pub async fn list_in_org(&self, member: &ActingMember) -> Result<Vec<OwnedToken>, AccessTokenError> {
        if member.role() != OrgRole::Admin {
            return Err(AccessTokenError::NotAdmin);
        }
        Ok(self.tokens.list_for_org(member.org()).await?)
    }

    /// Revokes a token that acts in the member's organization (its admins only); a token of every
    /// organization of its owner stops everywhere.
    ///
    /// # Errors
    /// [`AccessTokenError::NotAdmin`], [`AccessTokenError::NotFound`], [`AccessTokenError::AlreadyRevoked`],
    /// a store failure.
    pub async fn revoke_in_org(
        &self,
        member: &ActingMember,
        id: Uuid,
    ) -> Result<AccessToken, AccessTokenError> {
        if member.role() != OrgRole::Admin {
            return Err(AccessTokenError::NotAdmin);
        }
        let token = self.tokens.find(id).await?.ok_or(AccessTokenError::NotFound)?;
        let acts_here = match token.org_id {
            Some(org) => org == member.org(),
            None => self.members.role_of(member.org(), token.user_id).await?.is_some(),
        };
        if !acts_here {
            return Err(AccessTokenError::NotFound);
        }
        self.revoke(member.caller(), token).await
    }

    async fn revoke(&self, by: &Caller, token: AccessToken) -> Result<AccessToken, AccessTokenError> {
        if token.revoked_at.is_some() {
            return Err(AccessTokenError::AlreadyRevoked);
        }
        let now = self.clock.now();
        let audit = self
            .entries(by, AuditAction::AccessTokenRevoked, &token, now)
            .await?;
        if !self.tokens.revoke(token.id, now, &audit).await? {
            return Err(AccessTokenError::AlreadyRevoked);
        }
        Ok(AccessToken {
            revoked_at: Some(now),
            ..token
        })
    }

    /// Records the expiry of every token that expired and was not recorded yet, each in the audit log of
    /// the organizations it could act in; answers how many.
    ///
    /// # Errors
    /// A store failure.
    pub async fn record_expirations(&self) -> Result<usize, AccessTokenError> {
        let now = self.clock.now();
        let mut recorded = 0;
        for token in self.tokens.expired_unrecorded(now).await? {
            let mut entries = Vec::new();
            for org in self.orgs_of(&token).await? {
                let mut entry =
                    AuditEntry::by_operator(self.secrets.as_ref(), AuditAction::AccessTokenExpired, now)
                        .in_org(org)
                        .on(target(&token));
                entry.actor_id = Some(token.user_id);
                entries.push(entry);
            }
            if self.tokens.record_expiry(token.id, &entries).await? {
                recorded += 1;
            }
        }
        Ok(recorded)
    }
}
