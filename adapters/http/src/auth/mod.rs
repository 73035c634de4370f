//! Authentication of the product API (PRODUCT.md §1): the [`Principal`] extractor (a core token, or as the
//! specification's fallback a valid identity access token; nothing else), `POST /api/auth/exchange-token`,
//! the signed-in user (`GET /api/dev/auth/me`, `PUT /api/dev/auth/profile`), their sessions
//! (`GET /api/dev/auth/sessions`, `DELETE /api/dev/auth/sessions/{id}`) and `GET /api/admin/check`.

pub mod admin;
pub mod exchange;
pub mod me;
pub mod org_path;
pub mod org_scope;
pub mod principal;
pub mod sessions;
pub mod setup;
pub mod token_routes;

use domain::common::PlatformRole;
use domain::identity::{CoreTokenService, IdentityServices};
use serde::Serialize;
use std::sync::Arc;

use crate::RouteSink;

pub use org_path::{OrgMember, OrgMemberToLeave};
pub use org_scope::{Memberships, OrgHeader, OrgScope};
pub use principal::{Principal, SessionPrincipal};

/// A platform role as the API spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RoleName {
    Admin,
    Reviewer,
}

impl From<PlatformRole> for RoleName {
    fn from(role: PlatformRole) -> Self {
        match role {
            PlatformRole::Admin => Self::Admin,
            PlatformRole::Reviewer => Self::Reviewer,
        }
    }
}

/// What the product API's authentication needs.
#[derive(Clone)]
pub struct ProductAuth {
    pub core_tokens: Arc<CoreTokenService>,
    /// The built-in identity service's accounts (`None` with a hosted Supabase: the user is then what its
    /// token says).
    pub identity: Option<IdentityServices>,
    /// Which proxies may tell the client's address, recorded with the caller in audit entries
    /// (`PORTAL_TRUSTED_PROXIES`).
    pub proxies: crate::client_ip::TrustedProxies,
}

impl std::fmt::Debug for ProductAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProductAuth")
            .field("built_in_identity", &self.identity.is_some())
            .finish_non_exhaustive()
    }
}

/// Registers the routes of this module inside the `/api` scope ([`ProductAuth`] is app data of the whole
/// application, so that [`Principal`] works in every scope).
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(exchange::exchange_token)
        .service(me::me)
        .service(me::update_profile)
        .service(sessions::list_sessions)
        .service(sessions::sign_out_session)
        .service(admin::check)
        .service(setup::claim);
}
