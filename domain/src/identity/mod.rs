//! Identity: the built-in Supabase-Auth-compatible identity service (accounts, password policy, sessions with
//! rotating refresh tokens, e-mail links and codes, provider sign-in), the product's core token, the
//! platform-admin list, and the rate limits of the identity endpoints (PRODUCT.md §1, §5).
//!
//! One folder per concern; the files at this level are the shared kernel (models, ports, errors, digests):
//! - [`services`]: the identity services built together over one set of ports;
//! - [`sessions`]: what every sign-in shares (the issuer), password sign-in, refresh, sign-out and the
//!   signed token claims;
//! - [`signup`]: sign-up and the proof that the browser which signed up is the one that confirms;
//! - [`codes`]: e-mail links and one-time codes, and the e-mails that carry them;
//! - [`factors`]: second factors (TOTP), their challenges, and raising a session to `aal2`;
//! - [`assurance`]: the one assurance rule (what protects an account, what a session proves, what it may do);
//! - [`account`]: the signed-in user's own account (`/user`), its profile and the password policy;
//! - [`passkeys`]: passkeys (WebAuthn credentials): registering them, and signing in with one at `aal2`;
//! - [`oauth`]: sign-in with an external provider (OIDC) and the linked identities;
//! - [`core_token`]: the product's core token exchange, and accounts of a hosted Supabase;
//! - [`admins`]: the platform-admin list and the first-admin setup link;
//! - [`rate_limit`]: the limits of the identity endpoints.

pub mod account;
pub mod admins;
pub mod assurance;
pub mod attempts;
pub mod codes;
pub mod core_token;
pub mod digests;
pub mod errors;
pub mod factors;
pub mod models;
pub mod oauth;
pub mod passkeys;
pub mod ports;
pub mod rate_limit;
pub mod services;
pub mod sessions;
pub mod signup;

#[cfg(test)]
mod test_support;

pub use account::AccountService;
pub use account::password::{PasswordError, PasswordOwner, check_password};
pub use account::profile::ProfileChange;
pub use account::{GivenPassword, UserUpdate};
pub use admins::setup::{FirstAdminError, FirstAdminSetup, SetupLink};
pub use admins::{AdminCheck, PlatformAdminError, PlatformAdminService, SeedReport};
pub use assurance::{Action, AssuranceRules, Protection, Refusal, SessionProof};
pub use attempts::{Attempt, AttemptGuard, Guarded, Pause, Proof};
pub use codes::EmailSignIn;
pub use codes::{VerifyKind, VerifySecret};
pub use core_token::hosted::{HostedAccountError, HostedAccounts, email_proven};
pub use core_token::{AuthError, Authenticated, CoreToken, CoreTokenService};
pub use digests::DigestKey;
pub use errors::{FieldErrors, IdentityError};
pub use factors::FactorService;
pub use factors::{
    ChallengeStarted, EnrollRequest, Enrollment, Factor, FactorAnswer, FactorCeremonyKind, FactorChallenge,
    FactorStatus, FactorType, RecoveryCodeSet, RecoveryCodesStatus, RelyingPartyClaim, TotpEnrollment,
    WebAuthnAnswer,
};
pub use models::{
    Aal, Account, AuthMethod, ExternalIdentity, GrantBinding, OneTimeCode, OtpPurpose, PlatformAdmin,
    RefreshRefusal, RefreshToken, SecondFactorMethod, SecondStep, SessionClient, SetupClaim,
};
pub use oauth::external::ProviderProfile;
pub use oauth::external::ProviderSignIn;
pub use rate_limit::{
    ActionLimits, AuthAction, Limit, RateDecision, RateLimitPolicy, RateLimitStore, RateLimiter, SignInGate,
    VolumeLimits, WindowCounts, sign_in_delay,
};
pub use services::{IdentityPorts, IdentityServices};
pub use sessions::list::SessionSummary;
pub use sessions::tokens::{AccessTokenClaims, CoreTokenClaims, TokenError};
pub use sessions::{IdentityConfig, Session, SessionIssuer, SessionService, SignOutScope, UserRecord};
pub use signup::{SignUpOutcome, SignUpRequest};
