//! Organizations: profile, members and roles, invitations, and the permission table of PRODUCT.md §3.

pub mod errors;
pub mod invite_limits;
pub mod invites;
pub mod models;
pub mod ports;
pub mod service;

pub use crate::membership::acting;
pub use crate::membership::{
    ActingError, ActingMember, Door, MembershipRead, ORG_REQUIRES_TWO_FACTOR, OrgAction, OrgRole,
    SecondFactor, StandingSource,
};
pub use errors::OrgError;
pub use invites::{Invite, InviteStatus, InviteSummary, InviteToken};
pub use models::{
    FieldErrors, Member, NO_ORGANIZATION_SELECTED, OrgDetails, OrgMembership, OrgProfile, OrgProfileInput,
    Organization, ValidProfileUpdate, personal_org_name, validate_org_name, validate_profile_update,
};
pub use ports::{InviteRepository, MemberDirectory, MemberStanding, OrgContents, OrgRepository};
pub use service::{AcceptedInvite, InvitationService, OrgDeleted, OrgService, PersonalOrgOutcome};
