//! The two kinds of signed tokens: the identity service's access tokens (Supabase shape, audience
//! `authenticated`) and the product's own core token (audience `devportal-core`, `typ` `core`).
//!
//! The kinds never cross: the signer signs them with different keys, and each `check` refuses claims of the
//! other kind, so a core token is never accepted by the identity service and an access token is never taken
//! for a core token (PRODUCT.md §1).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::common::{EmailAddress, UserId};
use crate::identity::models::{ACCESS_TOKEN_TTL_SECS, Aal, AuthMethod, CORE_TOKEN_TTL_SECS, SecondStep};

/// `aud` of a core token.
pub const CORE_AUDIENCE: &str = "devportal-core";
/// `typ` of a core token.
pub const CORE_TYP: &str = "core";
/// `aud` and `role` of an identity access token (as Supabase Auth).
pub const ACCESS_AUDIENCE: &str = "authenticated";
pub const ACCESS_ROLE: &str = "authenticated";

/// Why a token was not accepted, or could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Well signed, but `exp` is not after now.
    #[error("token has expired")]
    Expired,
    /// Malformed, badly signed, signed with another kind's key, or carrying another kind's claims.
    #[error("token is invalid")]
    Invalid,
    /// The signer could not sign (for example, a verify-only adapter for a hosted identity service).
    #[error("token signing failed: {0}")]
    Signing(String),
}

/// The claims of a core token: who, and until when. No organization claims (PRODUCT.md §1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreTokenClaims {
    pub sub: UserId,
    pub email: EmailAddress,
    /// Seconds since the epoch.
    pub iat: i64,
    pub exp: i64,
    pub aud: String,
    pub typ: String,
    pub iss: String,
    /// The built-in identity service's session (refresh-token family) the token was exchanged from: the
    /// core token dies with it (signed out, revoked, taken over). Absent for a hosted identity service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<Uuid>,
    /// The assurance level of the session it was exchanged from (`aal1` for tokens made before levels).
    #[serde(default = "aal1")]
    pub aal: String,
    /// When the session it was exchanged from last gave a first factor (seconds since the epoch; OIDC's
    /// `auth_time`). Only a hosted session's core token is judged by it (a built-in one by its live
    /// session); absent, the sign-in is never recent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_time: Option<i64>,
}

fn aal1() -> String {
    Aal::Aal1.code().to_owned()
}

impl CoreTokenClaims {
    /// Claims for a core token issued now, valid one hour.
    #[must_use]
    pub fn issue(sub: UserId, email: EmailAddress, issuer: &str, now: DateTime<Utc>) -> Self {
        let iat = now.timestamp();
        Self {
            sub,
            email,
            iat,
            exp: iat + CORE_TOKEN_TTL_SECS,
            aud: CORE_AUDIENCE.to_owned(),
            typ: CORE_TYP.to_owned(),
            iss: issuer.to_owned(),
            sid: None,
            aal: aal1(),
            auth_time: None,
        }
    }

    /// Refuses claims of another kind, then expired ones.
    ///
    /// # Errors
    /// [`TokenError::Invalid`] unless `aud` is `devportal-core` and `typ` is `core`; [`TokenError::Expired`]
    /// when `exp` is not after `now`.
    pub fn check(&self, now: DateTime<Utc>) -> Result<(), TokenError> {
        if self.aud != CORE_AUDIENCE || self.typ != CORE_TYP {
            return Err(TokenError::Invalid);
        }
        if self.exp <= now.timestamp() {
            return Err(TokenError::Expired);
        }
        Ok(())
    }
}

/// `amr` methods that are a first factor (the person, or their mailbox or provider, authenticated). Second
/// factors (`totp`, `mfa/…`), `token_refresh` and `anonymous` are not: a factor step or a refresh never
/// renews a sign-in.
const FIRST_FACTOR_METHODS: [&str; 11] = [
    "password",
    "otp",
    "oauth",
    "magiclink",
    "sso/saml",
    "recovery",
    "invite",
    "email/signup",
    "email_change",
    "passkey",
    "web3",
];

impl AccessTokenClaims {
    /// When the session last gave a first factor, read from the `amr` timestamps (the latest first-factor
    /// entry); `None` when the token names none (then the sign-in is never recent).
    #[must_use]
    pub fn first_factor_at(&self) -> Option<DateTime<Utc>> {
        self.amr
            .iter()
            .filter(|entry| FIRST_FACTOR_METHODS.contains(&entry.method.as_str()))
            .map(|entry| entry.timestamp)
            .max()
            .and_then(|seconds| DateTime::from_timestamp(seconds, 0))
    }
}

/// One entry of the `amr` claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmrEntry {
    /// A Supabase method name (`password`, `otp`, `magiclink`, `oauth`…); a hosted service may send others.
    pub method: String,
    pub timestamp: i64,
}

/// `app_metadata` of an access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AppMetadata {
    #[serde(default)]
    pub provider: String,
    #[serde(default)]
    pub providers: Vec<String>,
    /// Set only by a hosted identity service's operator (Supabase's `app_metadata` is writable by the
    /// service role alone): whether the address is verified. Never set on the built-in service's tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_verified: Option<bool>,
}

/// The claims of an identity access token, in the shape Supabase Auth issues (so `supabase-js` reads them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessTokenClaims {
    pub iss: String,
    pub sub: UserId,
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    pub email: EmailAddress,
    #[serde(default)]
    pub phone: String,
    #[serde(default)]
    pub app_metadata: AppMetadata,
    #[serde(default)]
    pub user_metadata: Value,
    pub role: String,
    pub aal: String,
    #[serde(default)]
    pub amr: Vec<AmrEntry>,
    pub session_id: Uuid,
    #[serde(default)]
    pub is_anonymous: bool,
    /// A hosted identity service's own assertion that the address is verified (a custom access-token
    /// hook may add it). Never set on the built-in service's tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_verified: Option<bool>,
}

/// What an access token is issued for.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessGrant<'a> {
    pub user_id: UserId,
    pub email: &'a EmailAddress,
    pub session_id: Uuid,
    pub method: AuthMethod,
    /// When the session was authenticated (the `amr` timestamp).
    pub authenticated_at: DateTime<Utc>,
    /// `email`, or the providers linked to the account.
    pub providers: Vec<String>,
    pub user_metadata: Value,
    /// The second factor the session passed: then the token is `aal2` and `amr` names it first.
    pub second_step: Option<SecondStep>,
}

impl AccessTokenClaims {
    /// Claims for an access token issued now, valid one hour.
    #[must_use]
    pub fn issue(grant: AccessGrant<'_>, issuer: &str, now: DateTime<Utc>) -> Self {
        let iat = now.timestamp();
        let provider = grant
            .providers
            .first()
            .cloned()
            .unwrap_or_else(|| "email".to_owned());
        Self {
            iss: issuer.to_owned(),
            sub: grant.user_id,
            aud: ACCESS_AUDIENCE.to_owned(),
            exp: iat + ACCESS_TOKEN_TTL_SECS,
            iat,
            email: grant.email.clone(),
            phone: String::new(),
            app_metadata: AppMetadata {
                provider,
                providers: grant.providers,
                email_verified: None,
            },
            user_metadata: grant.user_metadata,
            role: ACCESS_ROLE.to_owned(),
            aal: grant
                .second_step
                .map_or(Aal::Aal1, |_| Aal::Aal2)
                .code()
                .to_owned(),
            // Most recent first, as Supabase Auth lists them.
            amr: grant
                .second_step
                .map(|step| AmrEntry {
                    method: step.method.code().to_owned(),
                    timestamp: step.at.timestamp(),
                })
                .into_iter()
                .chain(std::iter::once(AmrEntry {
                    method: grant.method.code().to_owned(),
                    timestamp: grant.authenticated_at.timestamp(),
                }))
                // A passkey sign-in is its own second step: named once.
                .fold(Vec::new(), |mut entries: Vec<AmrEntry>, entry| {
                    if !entries.iter().any(|e| e.method == entry.method) {
                        entries.push(entry);
                    }
                    entries
                }),
            session_id: grant.session_id,
            is_anonymous: false,
            email_verified: None,
        }
    }

    /// Refuses claims of another kind (a core token, an anonymous or service-role token), then expired ones.
    ///
    /// # Errors
    /// [`TokenError::Invalid`] unless `aud` and `role` are `authenticated` and the token is not anonymous;
    /// [`TokenError::Expired`] when `exp` is not after `now`.
    pub fn check(&self, now: DateTime<Utc>) -> Result<(), TokenError> {
        if self.aud != ACCESS_AUDIENCE || self.role != ACCESS_ROLE || self.is_anonymous {
            return Err(TokenError::Invalid);
        }
        if self.exp <= now.timestamp() {
            return Err(TokenError::Expired);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;
    use chrono::Duration;
    use serde_json::json;

    fn email() -> EmailAddress {
        EmailAddress::parse("dev@example.com").unwrap()
    }

    fn access_claims(now: DateTime<Utc>) -> AccessTokenClaims {
        let address = email();
        AccessTokenClaims::issue(
            AccessGrant {
                user_id: UserId::new(),
                email: &address,
                session_id: Uuid::new_v4(),
                method: AuthMethod::Password,
                authenticated_at: now,
                providers: vec!["email".into()],
                user_metadata: json!({}),
                second_step: None,
            },
            "https://portal.test/auth/v1",
            now,
        )
    }

    #[test]
    fn a_core_token_lives_one_hour_with_its_own_audience_and_type() {
        let claims = CoreTokenClaims::issue(UserId::new(), email(), "https://portal.test", noon());
        assert_eq!(claims.exp - claims.iat, 3600);
        assert_eq!(
            (claims.aud.as_str(), claims.typ.as_str()),
            ("devportal-core", "core")
        );
        assert_eq!(claims.check(noon()), Ok(()));
        assert_eq!(
            claims.check(noon() + Duration::hours(1)),
            Err(TokenError::Expired)
        );
    }

    #[test]
    fn an_access_token_has_the_supabase_shape() {
        let claims = access_claims(noon());
        let value = serde_json::to_value(&claims).unwrap();
        assert_eq!(value["aud"], "authenticated");
        assert_eq!(value["role"], "authenticated");
        assert_eq!(value["aal"], "aal1");
        assert_eq!(value["amr"][0]["method"], "password");
        assert_eq!(value["app_metadata"]["provider"], "email");
        assert_eq!(
            value["exp"].as_i64().unwrap() - value["iat"].as_i64().unwrap(),
            3600
        );
        assert!(value["session_id"].is_string());
        assert_eq!(claims.check(noon()), Ok(()));
        assert_eq!(
            claims.check(noon() + Duration::hours(1)),
            Err(TokenError::Expired)
        );
    }

    #[test]
    fn core_claims_are_never_accepted_as_access_claims() {
        let core = CoreTokenClaims::issue(UserId::new(), email(), "https://portal.test", noon());
        let as_json = serde_json::to_value(&core).unwrap();
        // A core token lacks the access token's role and session; even forced into shape, its audience fails.
        assert!(serde_json::from_value::<AccessTokenClaims>(as_json).is_err());
        let mut forged = access_claims(noon());
        forged.aud = CORE_AUDIENCE.into();
        assert_eq!(forged.check(noon()), Err(TokenError::Invalid));
    }

    #[test]
    fn access_claims_are_never_accepted_as_core_claims() {
        let access = serde_json::to_value(access_claims(noon())).unwrap();
        assert!(serde_json::from_value::<CoreTokenClaims>(access).is_err());
        let mut forged = CoreTokenClaims::issue(UserId::new(), email(), "iss", noon());
        forged.aud = ACCESS_AUDIENCE.into();
        assert_eq!(forged.check(noon()), Err(TokenError::Invalid));
        forged.aud = CORE_AUDIENCE.into();
        forged.typ = "access".into();
        assert_eq!(forged.check(noon()), Err(TokenError::Invalid));
    }

    #[test]
    fn anonymous_or_service_role_access_tokens_are_refused() {
        let mut anonymous = access_claims(noon());
        anonymous.is_anonymous = true;
        assert_eq!(anonymous.check(noon()), Err(TokenError::Invalid));
        let mut service = access_claims(noon());
        service.role = "service_role".into();
        assert_eq!(service.check(noon()), Err(TokenError::Invalid));
    }
}
