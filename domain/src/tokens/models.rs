//! A personal access token as stored (never its secret), and what a request reads of it.

use crate::common::code_enum;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::format::Scopes;
use crate::common::{EmailAddress, OrgId, UserId};
use crate::identity::{Protection, SessionProof};
use crate::orgs::OrgRole;

/// The longest token name.
pub const MAX_NAME_CHARS: usize = 100;
/// The expiry offered when none is chosen.
pub const DEFAULT_EXPIRY_DAYS: u32 = 90;
/// The longest expiry (a token without one is not offered).
pub const MAX_EXPIRY_DAYS: u32 = 365;
/// Most tokens an account holds that are neither revoked nor expired.
pub const MAX_ACTIVE_TOKENS: usize = 50;
/// How often a token's last use is written (a use within this many seconds of the last one recorded,
/// from the same address, writes nothing).
pub const LAST_USED_EVERY_SECS: i64 = 60;

/// A personal access token: whose, where it may act (one organization, or every one its owner belongs
/// to), what for, until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessToken {
    pub id: Uuid,
    pub user_id: UserId,
    /// `None`: every organization the owner belongs to.
    pub org_id: Option<OrgId>,
    pub name: String,
    pub scopes: Scopes,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The client address of the last recorded use.
    pub last_used_ip: Option<String>,
    /// The proof of the session that made it (its level, first-factor time, family and raising way in):
    /// at every use the token presents this proof to [`AssuranceRules`](crate::identity::AssuranceRules),
    /// never its owner's current protection alone. Removing the raising way in lowers it to `aal1`; a
    /// recovery that ends the family revokes it.
    pub made_with: SessionProof,
}

code_enum! {
    /// Whether a token works now.
    pub enum TokenStatus: "Whether a token works now." {
        Active => "active",
        Expired => "expired",
        Revoked => "revoked",
    }
}

impl AccessToken {
    #[must_use]
    pub fn status(&self, now: DateTime<Utc>) -> TokenStatus {
        if self.revoked_at.is_some() {
            TokenStatus::Revoked
        } else if self.expires_at <= now {
            TokenStatus::Expired
        } else {
            TokenStatus::Active
        }
    }

    /// Whether using the token from `ip` at `now` should be written down ([`LAST_USED_EVERY_SECS`]).
    #[must_use]
    pub fn use_worth_recording(&self, now: DateTime<Utc>, ip: Option<&str>) -> bool {
        match self.last_used_at {
            None => true,
            Some(last) => {
                (now - last).num_seconds() >= LAST_USED_EVERY_SECS || self.last_used_ip.as_deref() != ip
            }
        }
    }
}

/// A token with its owner's address, as an organization's admins see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedToken {
    pub token: AccessToken,
    pub owner_email: String,
}

/// What authenticating a request with a token reads, in one statement: the token and its stored digest,
/// its owner's address and what protects the account, and for a request naming an organization the
/// owner's role there, whether it requires a second factor and its apps' revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRead {
    pub token: AccessToken,
    pub secret_digest: String,
    pub owner_email: EmailAddress,
    /// When the owner's address was first proven (`None`: not yet): a token made before that was made by
    /// whoever held the unproven account, and ends with the proof as its sessions do.
    pub owner_proven_at: Option<DateTime<Utc>>,
    pub protection: Protection,
    pub org: Option<OrgStanding>,
}

impl TokenRead {
    /// Whether the token was made before its owner's address was proven: the first proof hands the
    /// account to the mailbox owner, and nothing the holder of the unproven account planted survives it.
    #[must_use]
    pub fn made_before_the_proof(&self) -> bool {
        self.owner_proven_at
            .is_some_and(|proven| self.token.created_at < proven)
    }
}

/// The owner's standing in the organization a request names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrgStanding {
    pub org: OrgId,
    /// `None`: not a member (or no such organization).
    pub role: Option<OrgRole>,
    pub requires_two_factor: bool,
    pub apps_revision: u64,
}
