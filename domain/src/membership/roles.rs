//! The roles of an organization and what each may do (the permission table of PRODUCT.md §3).

use crate::common::code_enum;

code_enum! {
    /// A role within one organization.
    #[derive(Default)]
    pub enum OrgRole: "A role within one organization." {
        Admin => "admin",
        /// The default role of an invitation.
        #[default]
        Member => "member",
    }
}

/// Everything a caller can do to or within an organization (PRODUCT.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrgAction {
    /// See the organization, its members and pending invitations.
    View,
    /// Create, edit, delete, publish, share, import and export apps; regenerate keys.
    ManageApps,
    /// Edit the profile, upload the logo, delete the organization.
    ManageProfile,
    /// Invite, resend and cancel invitations; change roles; remove others.
    ManageMembers,
    /// Leave (the only-admin guard is checked separately).
    Leave,
    /// Move an app out of this organization.
    MoveAppOut,
    /// Receive an app moved in from another organization.
    ReceiveApp,
    /// Read the organization's audit log.
    ReadAuditLog,
    /// Add, change, delete and test webhook endpoints; read their deliveries.
    ManageWebhooks,
}

impl OrgRole {
    /// Whether this role may perform `action` (the table of PRODUCT.md §3).
    #[must_use]
    pub const fn can(self, action: OrgAction) -> bool {
        match action {
            OrgAction::View | OrgAction::ManageApps | OrgAction::Leave | OrgAction::ReceiveApp => true,
            OrgAction::ManageProfile
            | OrgAction::ManageMembers
            | OrgAction::MoveAppOut
            | OrgAction::ReadAuditLog
            | OrgAction::ManageWebhooks => {
                matches!(self, Self::Admin)
            }
        }
    }
}
