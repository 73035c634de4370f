//! Identity: the built-in Supabase-Auth-compatible identity service (accounts, password policy, sessions with
//! rotating refresh tokens, e-mail links and codes, provider sign-in), the product's core token, the
//! platform-admin list, and the rate limits of the identity endpoints (PRODUCT.md §1, §5).

pub mod account;
pub mod admins;
pub mod codes;
pub mod core_token;
pub mod digests;
pub mod emails;
pub mod errors;
pub mod external;
pub mod hosted;
pub mod models;
pub mod oauth;
pub mod password;
pub mod ports;
pub mod profile;
pub mod proof;
pub mod rate_limit;
pub mod service;
pub mod setup;
pub mod signup;
pub mod tokens;

#[cfg(test)]
mod test_support;

pub use account::UserUpdate;
pub use admins::{AdminCheck, PlatformAdminError, PlatformAdminService, SeedReport};
pub use codes::{VerifyKind, VerifySecret};
pub use core_token::{AuthError, CoreToken, CoreTokenService};
pub use digests::DigestKey;
pub use errors::{FieldErrors, IdentityError};
pub use external::ProviderProfile;
pub use hosted::{HostedAccountError, HostedAccounts, email_proven};
pub use models::{
    Account, AuthMethod, ExternalIdentity, GrantBinding, OneTimeCode, OtpPurpose, PlatformAdmin,
    RefreshRefusal, RefreshToken, SetupClaim,
};
pub use password::{PasswordError, PasswordOwner, check_password};
pub use profile::ProfileChange;
pub use rate_limit::{
    ActionLimits, AuthAction, Limit, RateDecision, RateLimitPolicy, RateLimitStore, RateLimiter, SignInGate,
    WindowCounts, sign_in_delay,
};
pub use service::{IdentityConfig, IdentityPorts, IdentityService, Session, SignOutScope, UserRecord};
pub use setup::{FirstAdminError, FirstAdminSetup, SetupLink};
pub use signup::{SignUpOutcome, SignUpRequest};
pub use tokens::{AccessTokenClaims, CoreTokenClaims, TokenError};
