//! The diesel implementations of the domain's repository ports, one module per port family.

pub mod accounts;
pub mod admins;
pub mod codes;
pub mod secrets;
pub mod sessions;
pub mod uptime;

pub use accounts::{DieselAccountRepository, DieselIdentityLinkRepository};
pub use admins::DieselPlatformAdminRepository;
pub use codes::DieselOneTimeCodeRepository;
pub use secrets::ServerSecrets;
pub use sessions::DieselRefreshTokenRepository;
pub use uptime::DieselUptimeRepository;
