//! Builders shared by the identity tests.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::json;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

use crate::common::RepoError;
use crate::common::{EmailAddress, SecretGenerator, UserId};
use crate::identity::assurance::Protection;
use crate::identity::digests::DigestKey;
use crate::identity::factors::{Factor, FactorChallenge, FactorStatus};
use crate::identity::models::{
    Account, AuthMethod, ExternalIdentity, FAILED_CODES_FORGOTTEN_AFTER_MINUTES, LiveSession,
    MAX_FAILED_CODES, OneTimeCode, OtpPurpose, RefreshToken, SecondFactorMethod, SecondStep,
};
use crate::identity::ports::{
    FactorRepository, MockAccountRepository, MockIdentityLinkRepository, MockOneTimeCodeRepository,
    MockPasswordHasher, MockRecoveryCodeRepository, MockRefreshTokenRepository, MockSessionListRepository,
    MockTokenSigner, OneTimeCodeRepository,
};
use crate::identity::services::{IdentityPorts, IdentityServices};
use crate::identity::sessions::IdentityConfig;
use crate::identity::sessions::tokens::{AccessGrant, AccessTokenClaims};
use crate::mail::OutgoingEmail;
use crate::testing::{RepeatingBytes, fixed_clock, noon};

pub fn email(text: &str) -> EmailAddress {
    EmailAddress::parse(text).unwrap()
}

/// An account with the password hash `hash`, confirmed (and proven, as with a mailer) two days ago, or not.
pub fn account(address: &str, confirmed: bool) -> Account {
    let mut account = Account::new(email(address), noon() - chrono::Duration::days(3));
    account.password_hash = Some("hash".into());
    account.email_confirmed_at = confirmed.then(|| noon() - chrono::Duration::days(2));
    account.email_proven_at = account.email_confirmed_at;
    account
}

/// An account confirmed at sign-up because no mailer was configured: usable, with a password, not proven.
pub fn unproven_account(address: &str) -> Account {
    let mut account = account(address, true);
    account.email_proven_at = None;
    account
}

/// A usable refresh-token row last used (and started) at `at`.
pub fn refresh_row(at: DateTime<Utc>) -> RefreshToken {
    RefreshToken::start("stored-hash".into(), UserId::new(), AuthMethod::Password, at)
}

pub fn identity(provider: &str, user_id: UserId) -> ExternalIdentity {
    ExternalIdentity {
        issuer: format!("https://{provider}.test"),
        subject: "sub-1".into(),
        provider: provider.into(),
        user_id,
        email: None,
        email_verified: true,
        linked_at: noon(),
    }
}

pub fn access_claims(now: DateTime<Utc>) -> AccessTokenClaims {
    let address = email("dev@example.com");
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

/// The live head of the session of `claims`: its family and account, started (and last used) when the
/// token was issued, by the token's first factor; `aal2` (a TOTP step at that time) when the token is.
pub fn live_head(claims: &AccessTokenClaims) -> RefreshToken {
    let issued = DateTime::from_timestamp(claims.iat, 0).unwrap();
    let method = claims
        .amr
        .iter()
        .find_map(|entry| AuthMethod::parse(&entry.method))
        .unwrap_or(AuthMethod::Password);
    let mut head = RefreshToken::start("live-head-hash".into(), claims.sub, method, issued);
    head.family_id = claims.session_id;
    if claims.aal == "aal2" {
        head.second_step = Some(SecondStep {
            method: SecondFactorMethod::Totp,
            factor_id: None,
            at: issued,
        });
    }
    head
}

/// Another session of the account of `claims` (a new family), which passed a second factor: its access
/// token is `aal2`. The live head of the session of `claims` does not move, so `claims` stays `aal1`.
pub fn raised(claims: &AccessTokenClaims) -> AccessTokenClaims {
    let mut raised = claims.clone();
    raised.session_id = Uuid::new_v4();
    raised.aal = "aal2".into();
    raised
}

/// The digest key of the services the tests build.
pub fn digest_key() -> DigestKey {
    DigestKey::new(b"a test key for typed-code digests".to_vec())
}

pub fn config() -> IdentityConfig {
    IdentityConfig {
        public_url: "https://portal.test".into(),
        issuer: "https://portal.test/auth/v1".into(),
        require_email_confirmation: false,
        signups_enabled: true,
    }
}

/// One mock per port; the clock is fixed at noon and the secrets repeat the byte 7.
pub struct Mocks {
    pub accounts: MockAccountRepository,
    pub links: MockIdentityLinkRepository,
    pub refresh_tokens: MockRefreshTokenRepository,
    pub codes: MockOneTimeCodeRepository,
    pub hasher: MockPasswordHasher,
    pub signer: MockTokenSigner,
    pub recovery_codes: MockRecoveryCodeRepository,
    pub session_list: MockSessionListRepository,
    /// An in-memory factor store (shared, so a test can look into it after building the service).
    pub factors: Arc<InMemoryFactors>,
    /// The WebAuthn ceremonies of `webauthn` factors (none unless a test sets them).
    pub webauthn: Option<Arc<dyn crate::identity::ports::WebAuthnCeremony>>,
}

impl Mocks {
    pub fn new() -> Self {
        Self {
            accounts: MockAccountRepository::new(),
            links: MockIdentityLinkRepository::new(),
            refresh_tokens: MockRefreshTokenRepository::new(),
            codes: MockOneTimeCodeRepository::new(),
            hasher: MockPasswordHasher::new(),
            signer: MockTokenSigner::new(),
            recovery_codes: MockRecoveryCodeRepository::new(),
            session_list: MockSessionListRepository::new(),
            factors: Arc::new(InMemoryFactors::default()),
            webauthn: None,
        }
    }

    /// Starting a session succeeds: the address may be recorded as proven, the refresh token is stored, the
    /// sign-in recorded, no provider is linked, and the access token signs as `access-token`.
    pub fn allow_sessions(&mut self) {
        self.allow_session_storage();
        self.signer
            .expect_sign_access()
            .returning(|_| Ok("access-token".into()));
    }

    /// As [`Mocks::allow_sessions`], without the signer (for tests that check the claims).
    pub fn allow_session_storage(&mut self) {
        self.accounts.expect_prove_email().returning(|_, _| Ok(()));
        self.refresh_tokens.expect_insert().returning(|_| Ok(()));
        self.accounts.expect_touch_sign_in().returning(|_, _| Ok(()));
        self.links.expect_list_for_user().returning(|_| Ok(vec![]));
    }

    /// The session of `claims` is live: `current_of_family_with_role` (any number of times) answers its
    /// head ([`live_head`]: started when the token was issued, `aal2` when the token says so), with what
    /// protects the account computed at each read from the in-memory factor store (and `passkey`).
    pub fn live_session(&mut self, claims: &AccessTokenClaims, passkey: bool) {
        self.live_session_of(live_head(claims), move |_| passkey);
    }

    /// As [`Mocks::live_session`], for the live head `head` (of its family and account), whose account has
    /// a passkey when `has_passkey` says so at the time of the read.
    pub fn live_session_of(
        &mut self,
        head: RefreshToken,
        has_passkey: impl Fn(UserId) -> bool + Send + 'static,
    ) {
        let factors = Arc::clone(&self.factors);
        let family = head.family_id;
        self.refresh_tokens
            .expect_current_of_family_with_role()
            .withf(move |asked| *asked == family)
            .returning(move |_| {
                let owned: Vec<Factor> = factors
                    .factors
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|f| f.user_id == head.user_id)
                    .cloned()
                    .collect();
                Ok(Some(LiveSession {
                    head: head.clone(),
                    role: None,
                    protection: Protection::of(&owned, has_passkey(head.user_id)),
                }))
            });
    }

    pub fn service(self) -> IdentityServices {
        self.service_with(config())
    }

    pub fn service_with(mut self, config: IdentityConfig) -> IdentityServices {
        let codes = Arc::new(std::mem::take(&mut self.codes));
        self.build(config, codes, Arc::new(RepeatingBytes(7)))
    }

    /// As [`Mocks::service_with`], with another code store (the mock in `self.codes` is dropped); each
    /// random draw repeats a new byte, so every request's link and code differ.
    pub fn service_with_codes(
        self,
        config: IdentityConfig,
        codes: Arc<dyn OneTimeCodeRepository>,
    ) -> IdentityServices {
        self.build(config, codes, Arc::new(CountingBytes::default()))
    }

    fn build(
        self,
        config: IdentityConfig,
        codes: Arc<dyn OneTimeCodeRepository>,
        secrets: Arc<dyn SecretGenerator>,
    ) -> IdentityServices {
        IdentityServices::new(
            IdentityPorts {
                accounts: Arc::new(self.accounts),
                links: Arc::new(self.links),
                refresh_tokens: Arc::new(self.refresh_tokens),
                codes,
                factors: self.factors,
                recovery_codes: Arc::new(self.recovery_codes),
                session_list: Arc::new(self.session_list),
                hasher: Arc::new(self.hasher),
                signer: Arc::new(self.signer),
                clock: Arc::new(fixed_clock()),
                secrets,
                digest_key: digest_key(),
                webauthn: self.webauthn,
                limits: volume_limits(),
            },
            config,
        )
    }
}

/// The volume limits at the default policy, counted in memory (a test that reaches them asks for more).
pub fn volume_limits() -> crate::identity::rate_limit::VolumeLimits {
    crate::identity::rate_limit::VolumeLimits::new(Arc::new(crate::identity::rate_limit::RateLimiter::new(
        Arc::new(crate::testing::MemoryRateLimitStore::default()),
        Arc::new(fixed_clock()),
        crate::identity::rate_limit::RateLimitPolicy::default(),
    )))
}

/// The client address the tests' requests come from.
pub const CLIENT: &str = "203.0.113.7";

/// A generator whose every draw repeats the next byte (1, 2, 3…).
#[derive(Default)]
pub struct CountingBytes(std::sync::atomic::AtomicU8);

impl SecretGenerator for CountingBytes {
    fn random_bytes(&self, len: usize) -> Vec<u8> {
        let byte = self
            .0
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .wrapping_add(1);
        vec![byte; len]
    }
}

/// A code store that follows the port contract in memory: single use, expiry, siblings used together, a new
/// request retiring the earlier ones, failed typed codes counted per address.
#[derive(Default)]
pub struct InMemoryCodes {
    pub codes: Mutex<Vec<OneTimeCode>>,
    pub outbox: Mutex<Vec<OutgoingEmail>>,
    /// Per e-mail: (failures, last failure).
    pub failures: Mutex<Vec<(EmailAddress, u32, DateTime<Utc>)>>,
}

#[async_trait]
impl OneTimeCodeRepository for InMemoryCodes {
    async fn insert_with_email(&self, codes: &[OneTimeCode], email: &OutgoingEmail) -> Result<(), RepoError> {
        let mut stored = self.codes.lock().unwrap();
        for new in codes {
            for old in stored.iter_mut() {
                if old.email == new.email && old.purpose == new.purpose && old.used_at.is_none() {
                    old.used_at = Some(new.created_at);
                }
            }
        }
        stored.extend_from_slice(codes);
        self.outbox.lock().unwrap().push(email.clone());
        Ok(())
    }

    async fn consume(
        &self,
        code_hash: &str,
        purpose: OtpPurpose,
        now: DateTime<Utc>,
    ) -> Result<Option<OneTimeCode>, RepoError> {
        let mut codes = self.codes.lock().unwrap();
        let Some(found) = codes
            .iter()
            .find(|c| c.code_hash == code_hash && c.purpose == purpose && c.is_usable(now))
            .cloned()
        else {
            return Ok(None);
        };
        for code in codes.iter_mut() {
            if code.email == found.email && code.purpose == purpose && code.used_at.is_none() {
                code.used_at = Some(now);
            }
        }
        self.failures
            .lock()
            .unwrap()
            .retain(|(email, _, _)| *email != found.email);
        Ok(Some(OneTimeCode {
            used_at: Some(now),
            ..found
        }))
    }

    async fn pending_password(
        &self,
        email: &EmailAddress,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, RepoError> {
        Ok(self
            .codes
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.email == *email && c.purpose == OtpPurpose::Signup && c.is_usable(now))
            .max_by_key(|c| c.created_at)
            .and_then(|c| c.pending_password_hash.clone()))
    }

    async fn record_failed_code(
        &self,
        email: &EmailAddress,
        purposes: &[OtpPurpose],
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        let forget = now - chrono::Duration::minutes(FAILED_CODES_FORGOTTEN_AFTER_MINUTES);
        let mut failures = self.failures.lock().unwrap();
        failures.retain(|(e, _, last)| e != email || *last > forget);
        let count = match failures.iter_mut().find(|(e, _, _)| e == email) {
            Some(row) => {
                row.1 += 1;
                row.2 = now;
                row.1
            }
            None => {
                failures.push((email.clone(), 1, now));
                1
            }
        };
        if count < MAX_FAILED_CODES {
            return Ok(false);
        }
        failures.retain(|(e, _, _)| e != email);
        for code in self.codes.lock().unwrap().iter_mut() {
            if code.email == *email
                && code.used_at.is_none()
                && code.typed
                && purposes.contains(&code.purpose)
            {
                code.used_at = Some(now);
            }
        }
        Ok(true)
    }

    async fn prune_expired(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        let mut codes = self.codes.lock().unwrap();
        let before = codes.len();
        codes.retain(|c| c.expires_at >= cutoff);
        Ok((before - codes.len()) as u64)
    }
}

/// A [`FactorRepository`] in memory, with the compare-and-set of the real stores.
#[derive(Default)]
pub struct InMemoryFactors {
    pub factors: Mutex<Vec<Factor>>,
    pub challenges: Mutex<Vec<FactorChallenge>>,
    /// The security e-mails written with the changes (the outbox).
    pub notices: Mutex<Vec<crate::mail::OutgoingEmail>>,
}

#[async_trait]
impl FactorRepository for InMemoryFactors {
    async fn insert(&self, factor: &Factor) -> Result<(), RepoError> {
        self.factors.lock().unwrap().push(factor.clone());
        Ok(())
    }

    async fn list_for_user(&self, user: UserId) -> Result<Vec<Factor>, RepoError> {
        Ok(self
            .factors
            .lock()
            .unwrap()
            .iter()
            .filter(|f| f.user_id == user)
            .cloned()
            .collect())
    }

    async fn find(&self, user: UserId, id: Uuid) -> Result<Option<Factor>, RepoError> {
        Ok(self
            .factors
            .lock()
            .unwrap()
            .iter()
            .find(|f| f.user_id == user && f.id == id)
            .cloned())
    }

    async fn delete(
        &self,
        user: UserId,
        id: Uuid,
        _now: DateTime<Utc>,
        notice: Option<crate::mail::OutgoingEmail>,
    ) -> Result<bool, RepoError> {
        let mut factors = self.factors.lock().unwrap();
        let before = factors.len();
        factors.retain(|f| !(f.user_id == user && f.id == id));
        let removed = factors.len() < before;
        if removed {
            self.notices.lock().unwrap().extend(notice);
        }
        Ok(removed)
    }

    async fn insert_challenge(&self, challenge: &FactorChallenge) -> Result<(), RepoError> {
        self.challenges.lock().unwrap().push(challenge.clone());
        for factor in self.factors.lock().unwrap().iter_mut() {
            if factor.id == challenge.factor_id {
                factor.last_challenged_at = Some(challenge.created_at);
            }
        }
        Ok(())
    }

    async fn find_challenge(&self, factor_id: Uuid, id: Uuid) -> Result<Option<FactorChallenge>, RepoError> {
        Ok(self
            .challenges
            .lock()
            .unwrap()
            .iter()
            .find(|c| c.factor_id == factor_id && c.id == id)
            .cloned())
    }

    async fn delete_challenge(&self, id: Uuid) -> Result<(), RepoError> {
        self.challenges.lock().unwrap().retain(|c| c.id != id);
        Ok(())
    }

    async fn complete_verification(
        &self,
        factor_id: Uuid,
        challenge_id: Uuid,
        used: crate::identity::factors::FactorUse,
        now: DateTime<Utc>,
        notice: Option<crate::mail::OutgoingEmail>,
    ) -> Result<bool, RepoError> {
        use crate::identity::factors::FactorUse;
        let mut challenges = self.challenges.lock().unwrap();
        let mut factors = self.factors.lock().unwrap();
        let Some(challenge) = challenges
            .iter_mut()
            .find(|c| c.id == challenge_id && c.factor_id == factor_id && c.verified_at.is_none())
        else {
            return Ok(false);
        };
        let Some(factor) = factors.iter_mut().find(|f| {
            f.id == factor_id
                && match &used {
                    FactorUse::TotpStep(step) => f.last_used_step.is_none_or(|last| last < *step),
                    FactorUse::WebAuthnRegistered(_) => f.webauthn.is_none(),
                    FactorUse::WebAuthnAsserted { old, .. } => {
                        f.webauthn.as_ref().is_some_and(|c| c.sign_count == *old)
                    }
                }
        }) else {
            return Ok(false);
        };
        challenge.verified_at = Some(now);
        match used {
            FactorUse::TotpStep(step) => factor.last_used_step = Some(step),
            FactorUse::WebAuthnRegistered(credential) => factor.webauthn = Some(credential),
            FactorUse::WebAuthnAsserted { new, .. } => {
                if let Some(credential) = factor.webauthn.as_mut() {
                    credential.sign_count = new;
                }
            }
        }
        factor.status = FactorStatus::Verified;
        factor.updated_at = now;
        let (user, kind) = (factor.user_id, factor.factor_type);
        factors
            .retain(|f| f.id == factor_id || f.user_id != user || f.factor_type != kind || f.is_verified());
        self.notices.lock().unwrap().extend(notice);
        Ok(true)
    }
}

/// A TOTP factor of a new account with `status`, made at noon.
pub fn factor(status: FactorStatus) -> Factor {
    Factor {
        id: Uuid::new_v4(),
        user_id: UserId::new(),
        factor_type: crate::identity::factors::FactorType::Totp,
        status,
        friendly_name: None,
        sealed_secret: String::new(),
        last_used_step: None,
        created_at: noon(),
        updated_at: noon(),
        last_challenged_at: None,
        webauthn: None,
    }
}
