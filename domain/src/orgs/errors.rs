//! What the organization use cases can fail with. Each variant's doc says which HTTP status it means; the
//! `Display` texts are the specification's messages where it gives one.

use super::FieldErrors;
use super::invite_limits::InviteLimited;
use crate::common::{OrgId, RepoError};

/// Specification §6 (leaving), also the 409 of PRODUCT.md §3 for the only admin.
pub const ONLY_ADMIN_CANNOT_LEAVE: &str = "You cannot leave the organization as you are the only admin. Please promote another member to admin first.";
/// The demotion form of the only-admin guard (same wording pattern as specification §6).
pub const ONLY_ADMIN_CANNOT_BE_DEMOTED: &str =
    "You cannot demote the only admin of the organization. Please promote another member to admin first.";
/// The removal form of the only-admin guard (same wording pattern as specification §6).
pub const ONLY_ADMIN_CANNOT_BE_REMOVED: &str =
    "You cannot remove the only admin of the organization. Please promote another member to admin first.";
/// PRODUCT.md §3.
pub const APPS_REMAIN: &str = "Move or delete this organization's apps first";
/// The prefix of the already-a-member answer; the organization id follows a colon (specification §8: the
/// client reads the id after the colon).
pub const ALREADY_MEMBER_PREFIX: &str = "You are already a member of this organization";

/// The message of [`OrgError::OwnSecondFactorFirst`].
pub const OWN_SECOND_FACTOR_FIRST: &str = "Protect your own account first: add an authenticator app on Account Security and sign in with it, then require two-factor authentication of your organization.";

/// An organization use case failed.
#[derive(Debug, thiserror::Error)]
pub enum OrgError {
    /// 400 — the input is invalid; `fields` maps the API's field names to messages.
    #[error("{0}")]
    Validation(FieldErrors),
    /// 404 — no such organization, or the caller is not a member (not 403, so organization ids do not leak).
    #[error("Organization not found")]
    NotFound,
    /// 403 — the caller is a member but the role does not allow the action (PRODUCT.md §3).
    #[error("Only organization admins can do this")]
    AdminOnly,
    /// 404 — the user to change or remove is not a member.
    #[error("Member not found")]
    MemberNotFound,
    /// 400 — users cannot change their own role (specification §6).
    #[error("You cannot change your own role")]
    OwnRole,
    /// 400 — users cannot remove themselves; they leave (specification §6).
    #[error("You cannot remove yourself. Use Leave instead.")]
    RemoveSelf,
    /// 409 — the only admin cannot leave.
    #[error("{}", ONLY_ADMIN_CANNOT_LEAVE)]
    OnlyAdminCannotLeave,
    /// 409 — the only admin cannot be demoted.
    #[error("{}", ONLY_ADMIN_CANNOT_BE_DEMOTED)]
    OnlyAdminCannotBeDemoted,
    /// 409 — the only admin cannot be removed.
    #[error("{}", ONLY_ADMIN_CANNOT_BE_REMOVED)]
    OnlyAdminCannotBeRemoved,
    /// 409 — the organization still owns apps.
    #[error("{}", APPS_REMAIN)]
    AppsRemain,
    /// 409 — the invited address already belongs to a member.
    #[error("This email address already belongs to a member of this organization")]
    InviteeIsMember,
    /// 409 — an open, unexpired invitation exists for the address.
    #[error("An invitation is already pending for this email address. Resend it instead.")]
    InvitePending,
    /// 404 — no open invitation for the address (resend, cancel).
    #[error("No pending invitation for this email address")]
    InviteNotFound,
    /// 409 — resending an expired invitation (specification §2: resend only while not expired).
    #[error("This invitation has expired. Send a new invitation instead.")]
    ResendExpired,
    /// 404 — the accept token matches no open invitation (unknown, replaced by a resend, or cancelled).
    #[error("This invitation is invalid or has been cancelled")]
    InvalidInvite,
    /// 403 — the invitation is bound to another address (PRODUCT.md §3).
    #[error("This invitation was sent to a different email address")]
    WrongInvitee,
    /// 400 — specification §8: the client looks for "expired".
    #[error("This invitation has expired")]
    InviteExpired,
    /// 400 — specification §8: the client looks for "already been accepted".
    #[error("This invitation has already been accepted")]
    InviteAlreadyAccepted,
    /// 400 — specification §8: the client looks for "already a member" and reads the id after the colon.
    #[error("{prefix}:{0}", prefix = ALREADY_MEMBER_PREFIX)]
    AlreadyMember(OrgId),
    /// 429 — a limit on invitation e-mails refused this one (PRODUCT.md §1 "The portal is no relay"); the
    /// answer carries `Retry-After`.
    #[error("{}", .0.limit.message())]
    InviteLimited(InviteLimited),
    /// 403 `ORG_MFA_REQUIRED` — the organization requires a second factor the caller's session has not
    /// passed; a member held back so may only leave (PRODUCT.md §1a).
    #[error("{}", crate::membership::ORG_REQUIRES_TWO_FACTOR)]
    SecondFactorRequired,
    /// 403 `OWN_MFA_REQUIRED` — an admin turning the second-factor requirement on from a session that has
    /// not passed a second factor (they would lock themself out).
    #[error("{}", OWN_SECOND_FACTOR_FIRST)]
    OwnSecondFactorFirst,
    /// 500 (or the matching status for an unexpected conflict) — the store failed.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl OrgError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Validation(_) => "VALIDATION",
            Self::NotFound | Self::MemberNotFound | Self::InviteNotFound | Self::InvalidInvite => "NOT_FOUND",
            Self::AdminOnly | Self::WrongInvitee => "FORBIDDEN",
            Self::OwnRole | Self::RemoveSelf => "NOT_ALLOWED",
            Self::InviteExpired | Self::ResendExpired => "INVITE_EXPIRED",
            Self::InviteAlreadyAccepted => "INVITE_USED",
            Self::AlreadyMember(_) | Self::InviteeIsMember => "ALREADY_MEMBER",
            Self::OnlyAdminCannotLeave | Self::OnlyAdminCannotBeDemoted | Self::OnlyAdminCannotBeRemoved => {
                "ONLY_ADMIN"
            }
            Self::AppsRemain => "APPS_REMAIN",
            Self::InvitePending => "INVITE_PENDING",
            Self::InviteLimited(_) => "RATE_LIMITED",
            Self::SecondFactorRequired => "ORG_MFA_REQUIRED",
            Self::OwnSecondFactorFirst => "OWN_MFA_REQUIRED",
            Self::Repo(_) => "INTERNAL",
        }
    }

    /// The field errors, for the `fields` member of a 400 body.
    #[must_use]
    pub const fn fields(&self) -> Option<&FieldErrors> {
        match self {
            Self::Validation(fields) => Some(fields),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn the_only_admin_messages_follow_the_specifications_wording() {
        assert_eq!(
            OrgError::OnlyAdminCannotLeave.to_string(),
            "You cannot leave the organization as you are the only admin. Please promote another member to \
             admin first."
        );
        for error in [
            OrgError::OnlyAdminCannotBeDemoted,
            OrgError::OnlyAdminCannotBeRemoved,
        ] {
            assert!(
                error
                    .to_string()
                    .ends_with("Please promote another member to admin first.")
            );
        }
    }

    #[test]
    fn the_accept_messages_contain_what_the_client_looks_for() {
        assert!(OrgError::InviteExpired.to_string().contains("expired"));
        assert!(
            OrgError::InviteAlreadyAccepted
                .to_string()
                .contains("already been accepted")
        );
        assert_eq!(
            OrgError::WrongInvitee.to_string(),
            "This invitation was sent to a different email address"
        );
    }

    #[test]
    fn the_already_a_member_message_ends_with_the_organization_id_after_a_colon() {
        let org = OrgId(Uuid::nil());
        let message = OrgError::AlreadyMember(org).to_string();
        assert!(message.contains("already a member"));
        let (_, id) = message.rsplit_once(':').unwrap();
        assert_eq!(id, "00000000-0000-0000-0000-000000000000");
        assert_eq!(message.matches(':').count(), 1);
    }

    #[test]
    fn deleting_with_apps_says_to_move_or_delete_them() {
        assert_eq!(
            OrgError::AppsRemain.to_string(),
            "Move or delete this organization's apps first"
        );
    }

    #[test]
    fn a_validation_error_shows_its_first_message_and_exposes_its_fields() {
        let error = OrgError::Validation(FieldErrors::single("email", "Please enter a valid email address"));
        assert_eq!(error.to_string(), "Please enter a valid email address");
        assert_eq!(
            error.fields().and_then(|f| f.get("email")),
            Some("Please enter a valid email address")
        );
        assert!(OrgError::NotFound.fields().is_none());
    }
}
