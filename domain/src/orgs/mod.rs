//! Organizations: profile, members and roles, invitations, and the permission table of PRODUCT.md §3.

pub mod invites;
pub mod models;
pub mod ports;
pub mod service;

pub use models::{Member, OrgAction, OrgProfile, OrgRole, Organization};
