//! Organization invitations (PRODUCT.md §3, specification §4 "Invitation lifecycle").
//!
//! An invitation carries an opaque random token (32 bytes from the [`SecretGenerator`], hexadecimal) that
//! is e-mailed as a link and stored only as its SHA-256 digest. It is valid for 7 days, used once, and bound
//! to the invited address (compared case-insensitively: [`EmailAddress`] is stored lower-cased). The role
//! comes from the stored invitation. Resending issues a new token (the old link stops working), moves the
//! expiry to seven days from the resend and counts the e-mail.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::OrgRole;
use crate::common::secrets::{digest_secret, digests_match};
use crate::common::{EmailAddress, InviteId, OrgId, SecretGenerator, UserId};

/// Random bytes in an invitation token.
pub const INVITE_TOKEN_BYTES: usize = 32;
/// Days an invitation (or a resent one) stays valid.
pub const INVITE_VALIDITY_DAYS: i64 = 7;
/// The path of the accept screen; the token follows as `?token=…`.
pub const INVITE_ACCEPT_PATH: &str = "/invite/accept";

/// How long an invitation stays valid.
#[must_use]
pub fn invite_validity() -> Duration {
    Duration::days(INVITE_VALIDITY_DAYS)
}

/// The link e-mailed to the invitee: `{public_url}/invite/accept?token={token}`. The token is hexadecimal,
/// so it needs no escaping.
#[must_use]
pub fn invite_link(public_url: &str, token: &str) -> String {
    format!(
        "{}{INVITE_ACCEPT_PATH}?token={token}",
        public_url.trim_end_matches('/')
    )
}

/// A freshly drawn token: the secret goes into the e-mail only, the digest into storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InviteToken {
    pub token: String,
    pub token_hash: String,
    pub expires_at: DateTime<Utc>,
}

impl InviteToken {
    /// Draws a new token valid for seven days from `now`.
    #[must_use]
    pub fn issue(secrets: &dyn SecretGenerator, now: DateTime<Utc>) -> Self {
        let token = secrets.token_hex(INVITE_TOKEN_BYTES);
        let token_hash = digest_secret(&token);
        Self {
            token,
            token_hash,
            expires_at: now + invite_validity(),
        }
    }
}

/// Where an invitation stands at a given instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InviteStatus {
    /// Open and still valid.
    Pending,
    /// Open but past its expiry (shown as Expired; cannot be resent, only re-invited).
    Expired,
    /// Used: the invitee joined.
    Accepted,
    /// Rescinded by an admin.
    Cancelled,
}

/// A stored invitation. Not serialisable on purpose: the API shows [`InviteSummary`], never the digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invite {
    pub id: InviteId,
    pub org_id: OrgId,
    pub email: EmailAddress,
    pub role: OrgRole,
    /// SHA-256 of the current token ([`digest_secret`]).
    pub token_hash: String,
    pub invited_by: UserId,
    pub invited_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// How many times the invitation e-mail was sent (1 on creation).
    pub email_sent_count: u32,
    pub accepted_at: Option<DateTime<Utc>>,
    pub cancelled_at: Option<DateTime<Utc>>,
}

impl Invite {
    /// A new invitation with its token; the token (for the link) is returned beside it and never stored.
    #[must_use]
    pub fn issue(
        org_id: OrgId,
        email: EmailAddress,
        role: OrgRole,
        invited_by: UserId,
        secrets: &dyn SecretGenerator,
        now: DateTime<Utc>,
    ) -> (Self, String) {
        let InviteToken {
            token,
            token_hash,
            expires_at,
        } = InviteToken::issue(secrets, now);
        let invite = Self {
            id: InviteId::new(),
            org_id,
            email,
            role,
            token_hash,
            invited_by,
            invited_at: now,
            expires_at,
            email_sent_count: 1,
            accepted_at: None,
            cancelled_at: None,
        };
        (invite, token)
    }

    /// Whether the invitation has passed its expiry at `now` (an invitation expires at `expires_at` exactly).
    #[must_use]
    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        now >= self.expires_at
    }

    /// Neither accepted nor cancelled (it may still have expired).
    #[must_use]
    pub const fn is_open(&self) -> bool {
        self.accepted_at.is_none() && self.cancelled_at.is_none()
    }

    /// The status at `now`; accepted and cancelled take precedence over expiry.
    #[must_use]
    pub fn status(&self, now: DateTime<Utc>) -> InviteStatus {
        if self.accepted_at.is_some() {
            InviteStatus::Accepted
        } else if self.cancelled_at.is_some() {
            InviteStatus::Cancelled
        } else if self.is_expired(now) {
            InviteStatus::Expired
        } else {
            InviteStatus::Pending
        }
    }

    /// Whether `token` is this invitation's current token (compared as digests, in constant time).
    #[must_use]
    pub fn matches_token(&self, token: &str) -> bool {
        digests_match(&self.token_hash, &digest_secret(token))
    }

    /// Whether the invitation was sent to `email` (both are lower-cased addresses).
    #[must_use]
    pub fn is_for(&self, email: &EmailAddress) -> bool {
        &self.email == email
    }

    /// Applies a resend: the new token's digest, the new expiry, one more e-mail.
    pub fn apply_resend(&mut self, token: &InviteToken) {
        self.token_hash.clone_from(&token.token_hash);
        self.expires_at = token.expires_at;
        self.email_sent_count = self.email_sent_count.saturating_add(1);
    }

    /// What the members screen shows of this invitation.
    #[must_use]
    pub fn summary(&self, now: DateTime<Utc>) -> InviteSummary {
        InviteSummary {
            email: self.email.clone(),
            role: self.role,
            invited_at: self.invited_at,
            expires_at: self.expires_at,
            email_sent_count: self.email_sent_count,
            status: self.status(now),
        }
    }
}

/// A pending invitation as the API shows it (specification §3 `pendingInvites`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InviteSummary {
    pub email: EmailAddress,
    pub role: OrgRole,
    pub invited_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub email_sent_count: u32,
    pub status: InviteStatus,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{RepeatingBytes, noon};

    fn invite() -> (Invite, String) {
        Invite::issue(
            OrgId::new(),
            EmailAddress::parse("Ada@Example.com").unwrap(),
            OrgRole::Member,
            UserId::new(),
            &RepeatingBytes(0x5a),
            noon(),
        )
    }

    #[test]
    fn a_token_is_thirty_two_random_bytes_in_hex_and_only_its_digest_is_kept() {
        let (invite, token) = invite();
        assert_eq!(token, "5a".repeat(32));
        assert_eq!(invite.token_hash, digest_secret(&token));
        assert_ne!(invite.token_hash, token);
    }

    #[test]
    fn an_invitation_is_valid_for_seven_days_and_counts_its_first_email() {
        let (invite, _) = invite();
        assert_eq!(invite.expires_at, noon() + Duration::days(7));
        assert_eq!(invite.email_sent_count, 1);
        assert_eq!(invite.invited_at, noon());
        assert!(invite.is_open());
    }

    #[test]
    fn an_invitation_expires_at_its_expiry_instant() {
        let (invite, _) = invite();
        assert!(!invite.is_expired(invite.expires_at - Duration::seconds(1)));
        assert!(invite.is_expired(invite.expires_at));
    }

    #[test]
    fn the_status_is_pending_then_expired() {
        let (invite, _) = invite();
        assert_eq!(invite.status(noon()), InviteStatus::Pending);
        assert_eq!(invite.status(noon() + Duration::days(8)), InviteStatus::Expired);
    }

    #[test]
    fn accepted_and_cancelled_take_precedence_over_expiry() {
        let (mut invite, _) = invite();
        let later = noon() + Duration::days(30);
        invite.cancelled_at = Some(noon());
        assert_eq!(invite.status(later), InviteStatus::Cancelled);
        invite.accepted_at = Some(noon());
        assert_eq!(invite.status(later), InviteStatus::Accepted);
        assert!(!invite.is_open());
    }

    #[test]
    fn the_token_matches_only_itself() {
        let (invite, token) = invite();
        assert!(invite.matches_token(&token));
        assert!(!invite.matches_token(&"5b".repeat(32)));
    }

    #[test]
    fn an_invitation_is_bound_to_its_address_whatever_the_case() {
        let (invite, _) = invite();
        assert!(invite.is_for(&EmailAddress::parse("ADA@example.COM").unwrap()));
        assert!(!invite.is_for(&EmailAddress::parse("eve@example.com").unwrap()));
    }

    #[test]
    fn a_resend_replaces_the_token_extends_the_expiry_and_counts_the_email() {
        let (mut invite, old_token) = invite();
        let later = noon() + Duration::days(3);
        let fresh = InviteToken::issue(&RepeatingBytes(0x11), later);
        invite.apply_resend(&fresh);
        assert_eq!(invite.expires_at, later + Duration::days(7));
        assert_eq!(invite.email_sent_count, 2);
        assert!(invite.matches_token(&fresh.token));
        assert!(!invite.matches_token(&old_token));
    }

    #[test]
    fn the_link_goes_to_the_accept_screen_with_the_token() {
        assert_eq!(
            invite_link("https://portal.example.com/", "abc123"),
            "https://portal.example.com/invite/accept?token=abc123"
        );
    }

    #[test]
    fn the_summary_shows_what_the_members_screen_needs_and_no_digest() {
        let (invite, _) = invite();
        let json = serde_json::to_value(invite.summary(noon())).unwrap();
        assert_eq!(json["email"], "ada@example.com");
        assert_eq!(json["role"], "member");
        assert_eq!(json["emailSentCount"], 1);
        assert_eq!(json["status"], "pending");
        assert!(json["invitedAt"].is_string() && json["expiresAt"].is_string());
        assert!(json.get("tokenHash").is_none());
    }
}
