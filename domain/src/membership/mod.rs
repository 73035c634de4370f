//! Membership: who stands in an organization and what that lets them do. The roles and their permission
//! table, the membership door every organization-scoped use case passes ([`ActingMember`]), and what the
//! contexts above read of an organization ([`MemberDirectory`], [`OrgProfileLookup`]). It sits on the floor
//! above `common`, so the audit log, mail, identity and media name an organization's roles without reaching
//! up into `orgs` (which re-exports all of it).

pub mod acting;
pub mod ports;
pub mod roles;

pub use acting::{
    ActingError, ActingMember, Door, MembershipRead, ORG_REQUIRES_TWO_FACTOR, SecondFactor, StandingSource,
};
pub use ports::{MemberDirectory, MemberStanding, OrgContact, OrgProfileLookup};
pub use roles::{OrgAction, OrgRole};
