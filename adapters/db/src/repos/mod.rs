//! The diesel implementations of the domain's repository ports, one module per context.

pub mod accounts;
pub mod admins;
pub mod apps;
pub mod audit;
pub mod codes;
pub mod factors;
pub mod identities;
pub mod images;
pub mod invites;
mod live_sessions;
pub mod oauth;
pub mod orgs;
pub mod outbox;
pub mod rate_limits;
pub mod reviews;
pub mod secrets;
pub mod sessions;
pub mod uptime;

pub use accounts::DieselAccountRepository;
pub use admins::DieselPlatformAdminRepository;
pub use apps::{DieselAppRepository, DieselOrgProfileLookup};
pub use audit::DieselAuditLog;
pub use codes::DieselOneTimeCodeRepository;
pub use factors::DieselFactorRepository;
pub use identities::DieselIdentityLinkRepository;
pub use images::DieselImageRepository;
pub use invites::DieselInviteRepository;
pub use oauth::DieselOAuthFlowRepository;
pub use orgs::{DieselMemberDirectory, DieselOrgRepository};
pub use outbox::{DieselOutboxRepository, enqueue_emails};
pub use rate_limits::DieselRateLimitStore;
pub use reviews::DieselReviewRepository;
pub use secrets::ServerSecrets;
pub use sessions::DieselRefreshTokenRepository;
pub use uptime::DieselUptimeRepository;
