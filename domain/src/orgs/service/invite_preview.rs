//! What an invitation link shows before anyone signs in (`GET /api/invites/{token}`): the answer's types and
//! [`InvitationService::preview_invite`].

use serde::{Deserialize, Serialize};

use super::invitations::InvitationService;
use crate::common::EmailAddress;
use crate::common::secrets::digest_secret;
use crate::identity::rate_limit::RateDecision;
use crate::orgs::errors::OrgError;
use crate::orgs::invite_limits;
pub use crate::orgs::invite_limits::{PREVIEW_WINDOW_SECS, PREVIEWS_PER_CLIENT};

/// Where an invitation stands, as its link's page tells it before sign-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum InviteLinkStatus {
    /// It can be accepted (by its address).
    Open,
    /// Its seven days have passed: an admin of the organization has to send a new one.
    Expired,
    /// It was accepted already.
    Accepted,
}

/// What an invitation link shows before anyone signs in (`GET /api/invites/{token}`): no more than the
/// organization's name, who invited (an address), a hint of the invited address and whether it can still
/// be accepted. The token (32 random bytes) is what makes it unguessable; the reads are limited per client
/// address besides ([`PREVIEWS_PER_CLIENT`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvitePreview {
    pub organization_name: String,
    /// The inviting admin's address; `None` when that account is no longer a member.
    pub inviter: Option<String>,
    /// The invited address with most of its local part hidden (`a•••@example.com`).
    pub email_hint: String,
    pub status: InviteLinkStatus,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// The invited address with its local part hidden but for its first character: enough for the invitee to
/// recognise which of their addresses to sign up with, not enough to learn someone's address.
#[must_use]
pub fn email_hint(email: &EmailAddress) -> String {
    let text = email.as_str();
    match text.split_once('@') {
        Some((local, domain)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}\u{2022}\u{2022}\u{2022}@{domain}")
        }
        None => "\u{2022}\u{2022}\u{2022}".to_owned(),
    }
}

impl InvitationService {
    /// What the invitation link `token` shows before sign-in ([`InvitePreview`]), counted against the
    /// client address `client` ([`PREVIEWS_PER_CLIENT`] per [`PREVIEW_WINDOW_SECS`]).
    ///
    /// # Errors
    /// [`OrgError::InviteLimited`] (429) when the client looked up too many links;
    /// [`OrgError::InvalidInvite`] (404) for an unknown, replaced or cancelled token, or one whose
    /// organization is gone; [`OrgError::Repo`].
    pub async fn preview_invite(&self, client: &str, token: &str) -> Result<InvitePreview, OrgError> {
        let now = self.clock.now();
        let limit = invite_limits::preview_limit();
        let counts = self
            .limits
            .hit(
                &digest_secret(&invite_limits::preview_key(client)),
                limit.window_start(now),
                limit.window_secs,
            )
            .await?;
        if let RateDecision::Limited { retry_after_secs } = limit.decide(counts, now) {
            return Err(OrgError::InviteLimited(invite_limits::InviteLimited {
                limit: invite_limits::InviteLimit::Previews,
                retry_after_secs,
            }));
        }
        let token = token.trim();
        if token.is_empty() {
            return Err(OrgError::InvalidInvite);
        }
        let invite = self
            .invites
            .find_by_token_hash(&digest_secret(token))
            .await?
            .filter(|i| i.cancelled_at.is_none())
            .ok_or(OrgError::InvalidInvite)?;
        let organization = self
            .orgs
            .get(invite.org_id)
            .await?
            .ok_or(OrgError::InvalidInvite)?;
        let inviter = self
            .orgs
            .members(invite.org_id)
            .await?
            .into_iter()
            .find(|member| member.user_id == invite.invited_by)
            .map(|member| member.email.as_str().to_owned());
        let status = if invite.accepted_at.is_some() {
            InviteLinkStatus::Accepted
        } else if invite.is_expired(now) {
            InviteLinkStatus::Expired
        } else {
            InviteLinkStatus::Open
        };
        Ok(InvitePreview {
            organization_name: organization.name,
            inviter,
            email_hint: email_hint(&invite.email),
            status,
            expires_at: invite.expires_at,
        })
    }
}
