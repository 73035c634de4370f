//! Personal access tokens (`dpt_…`): a person's way into the product API for scripts and CI, with scopes,
//! one organization or all of the owner's, and an expiry. A token acts as its owner *now*, through the
//! same membership door as a person: its power is the smaller of its scopes and the owner's current role,
//! an organization that requires two factors accepts it only while the owner has one, and it never works
//! on `/auth/v1`, staff routes, token or member management (the HTTP adapter's route table says where it
//! works and which scope each route needs).

pub mod format;
pub mod models;
pub mod ports;
pub mod service;

pub use crate::common::TokenUse;
pub use format::{Scope, Scopes};
pub use models::{AccessToken, OrgStanding, OwnedToken, TokenRead, TokenStatus};
pub use ports::AccessTokenRepository;
pub use service::{AccessTokenError, AccessTokenService, CreatedToken, NewAccessToken, TokenRefusal};
