//! The action codes of the audit log: one list, the only place a code is spelled. An entry's code is stored
//! as text and shown as is on the Audit Log page and in its CSV, so a code is never renamed once released.

use crate::common::code_enum;

code_enum! {
    /// What an audit entry records (PRODUCT.md §9 "Audit log").
    pub enum AuditAction: "An audit action code (the list of `domain::audit::actions`)" {
        /// An app was registered (target: the app; changes: its name).
        AppCreated => "app.created",
        /// An app's editable fields were changed (changes: each changed field, old and new).
        AppUpdated => "app.updated",
        /// An app was deleted with its key, share link, images and history.
        AppDeleted => "app.deleted",
        /// An app was submitted for review (changes: `appStoreStatus`).
        AppPublished => "app.published",
        /// An app moved to another organization (changes: `organizationId`); recorded in both organizations.
        AppMoved => "app.moved",
        /// An app's API key was replaced; the key itself is never recorded.
        AppKeyRegenerated => "app.key_regenerated",
        /// Whether the whole organization may test the app changed (changes: `sharedWithOrganization`).
        AppVisibilityChanged => "app.visibility_changed",
        /// The tester list changed (changes: `sharedWithEmailsCount`, the number of addresses, never the
        /// addresses).
        AppSharingChanged => "app.sharing_changed",
        /// The app's permissions were replaced (changes: `permissions`, the permission types).
        AppPermissionsChanged => "app.permissions_changed",
        /// The app's share link was replaced; the token is never recorded.
        AppShareLinkReset => "app.share_link_reset",
        /// An organization was created.
        OrgCreated => "org.created",
        /// An organization's name or profile changed (changes: each changed field).
        OrgUpdated => "org.updated",
        /// An organization was deleted.
        OrgDeleted => "org.deleted",
        /// An invitation was sent (target: the invitation; changes: `email`, `role`).
        InviteSent => "invite.sent",
        /// An invitation was sent again; the token is never recorded.
        InviteResent => "invite.resent",
        /// An invitation was withdrawn.
        InviteRescinded => "invite.rescinded",
        /// An invitation was accepted; the new member is the actor.
        InviteAccepted => "invite.accepted",
        /// A member's role changed (target: the member; changes: `role`).
        MemberRoleChanged => "member.role_changed",
        /// A member was removed by an admin.
        MemberRemoved => "member.removed",
        /// A member left the organization.
        MemberLeft => "member.left",
        /// A reviewer approved a submission (changes: `appStoreStatus`, `reviewNotes`).
        ReviewApproved => "review.approved",
        /// A reviewer rejected a submission (changes: `appStoreStatus`, `reviewNotes`).
        ReviewRejected => "review.rejected",
        /// A platform role was given to an account (changes: `platformRole`).
        PlatformRoleGranted => "platform.role_granted",
        /// A platform role was taken from an account (changes: `platformRole`).
        PlatformRoleRevoked => "platform.role_revoked",
        /// The first platform admin was made through the one-time setup link.
        PlatformFirstAdmin => "platform.first_admin",
        /// An image was uploaded (target: the image).
        ImageUploaded => "image.uploaded",
        /// An image was deleted (target: the image).
        ImageDeleted => "image.deleted",
        /// A personal access token was created (target: the token, labelled with its name; changes:
        /// `scopes`); recorded in each organization it may act in. Its secret is never recorded.
        AccessTokenCreated => "token.created",
        /// A personal access token was revoked, by its owner or an organization admin.
        AccessTokenRevoked => "token.revoked",
        /// A personal access token reached its expiry (the owner is the actor).
        AccessTokenExpired => "token.expired",
        /// A webhook endpoint was added (target: the endpoint, labelled with its URL; changes: `url`,
        /// `events`). Its secret is never recorded.
        WebhookCreated => "webhook.created",
        /// A webhook endpoint's URL, description, events or state changed (changes: each changed field).
        WebhookUpdated => "webhook.updated",
        /// A webhook endpoint was deleted with its delivery log.
        WebhookDeleted => "webhook.deleted",
        /// A webhook endpoint's signing secret was replaced (the former one signs for 24 more hours).
        WebhookSecretRotated => "webhook.secret_rotated",
        /// The server disabled a webhook endpoint: it answered 410 Gone, or failed for three days (changes:
        /// `enabled`, `disabledReason`); the operator is the actor.
        WebhookDisabled => "webhook.disabled",
    }
}

impl AuditAction {
    /// Whether platform admins see the entry in the platform's log: platform entries and review decisions,
    /// whatever organization they concern.
    #[must_use]
    pub const fn is_platform(self) -> bool {
        matches!(
            self,
            Self::ReviewApproved
                | Self::ReviewRejected
                | Self::PlatformRoleGranted
                | Self::PlatformRoleRevoked
                | Self::PlatformFirstAdmin
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_back_and_is_unique() {
        let mut seen = std::collections::HashSet::new();
        for action in AuditAction::ALL {
            assert_eq!(AuditAction::parse(action.code()), Some(*action));
            assert!(seen.insert(action.code()), "{} twice", action.code());
            let (area, verb) = action.code().split_once('.').unwrap_or_default();
            assert!(!area.is_empty() && !verb.is_empty(), "{}", action.code());
        }
        assert_eq!(AuditAction::parse("app.renamed"), None);
    }

    #[test]
    fn the_code_is_the_wire_spelling() {
        assert_eq!(
            serde_json::to_value(AuditAction::AppKeyRegenerated).unwrap_or_default(),
            serde_json::json!("app.key_regenerated")
        );
    }
}
