//! Organization entities and the role permission table.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::common::{EmailAddress, OrgId, UserId};

/// A role within one organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrgRole {
    Admin,
    /// The default role of an invitation.
    #[default]
    Member,
}

impl OrgRole {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Admin => "admin",
            Self::Member => "member",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "admin" => Some(Self::Admin),
            "member" => Some(Self::Member),
            _ => None,
        }
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
}

impl OrgRole {
    /// Whether this role may perform `action` (the table of PRODUCT.md §3).
    #[must_use]
    pub const fn can(self, action: OrgAction) -> bool {
        match action {
            OrgAction::View | OrgAction::ManageApps | OrgAction::Leave | OrgAction::ReceiveApp => true,
            OrgAction::ManageProfile | OrgAction::ManageMembers | OrgAction::MoveAppOut => {
                matches!(self, Self::Admin)
            }
        }
    }
}

/// The organization profile. Publishing needs a name and a contact e-mail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_email: Option<EmailAddress>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
}

/// An organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    pub id: OrgId,
    pub name: String,
    pub profile: OrgProfile,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A member of an organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub user_id: UserId,
    pub email: EmailAddress,
    pub role: OrgRole,
    pub joined_at: DateTime<Utc>,
}
