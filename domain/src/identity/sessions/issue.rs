//! What every way of signing in shares ([`SessionIssuer`]): starting a session (a new refresh-token family
//! and its access token), the user record a session answers, the account a session belongs to, the
//! assurance rule asked of a live session, and the e-mail that tells an owner how signing in changed.
//! The identity services (sessions, factors, account, e-mail sign-in, provider sign-in, passkeys) each hold
//! the issuer and only the ports of their own job.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::common::secrets::digest_secret;
use crate::common::{Clock, EmailAddress, SecretGenerator, UserId};
use crate::identity::assurance::{Action, AssuranceRules, Refusal, SessionProof};
use crate::identity::errors::IdentityError;
use crate::identity::factors::Factor;
use crate::identity::models::{
    ACCESS_TOKEN_TTL_SECS, Account, AuthMethod, LiveSession, OPAQUE_TOKEN_BYTES, RefreshToken, SecondStep,
};
use crate::identity::ports::{
    AccountRepository, FactorRepository, IdentityLinkRepository, RefreshTokenRepository, TokenSigner,
};
use crate::identity::sessions::tokens::{AccessGrant, AccessTokenClaims};
use crate::identity::sessions::{IdentityConfig, Session, UserRecord};
use crate::mail::OutgoingEmail;
use crate::mail::templates::{self, SecurityChange};

/// What every identity service shares: sessions started and judged one way.
pub struct SessionIssuer {
    pub(in crate::identity) accounts: Arc<dyn AccountRepository>,
    pub(in crate::identity) links: Arc<dyn IdentityLinkRepository>,
    pub(in crate::identity) factors: Arc<dyn FactorRepository>,
    pub(in crate::identity) refresh_tokens: Arc<dyn RefreshTokenRepository>,
    signer: Arc<dyn TokenSigner>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: IdentityConfig,
}

/// The issuer's ports.
pub struct IssuerPorts {
    pub accounts: Arc<dyn AccountRepository>,
    pub links: Arc<dyn IdentityLinkRepository>,
    pub factors: Arc<dyn FactorRepository>,
    pub refresh_tokens: Arc<dyn RefreshTokenRepository>,
    pub signer: Arc<dyn TokenSigner>,
    pub clock: Arc<dyn Clock>,
    pub secrets: Arc<dyn SecretGenerator>,
}

impl SessionIssuer {
    #[must_use]
    pub fn new(ports: IssuerPorts, config: IdentityConfig) -> Self {
        Self {
            accounts: ports.accounts,
            links: ports.links,
            factors: ports.factors,
            refresh_tokens: ports.refresh_tokens,
            signer: ports.signer,
            clock: ports.clock,
            secrets: ports.secrets,
            config,
        }
    }

    #[must_use]
    pub const fn config(&self) -> &IdentityConfig {
        &self.config
    }

    /// The time now, by the services' one clock.
    #[must_use]
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// The account `user`, or [`IdentityError::UserNotFound`].
    ///
    /// # Errors
    /// [`IdentityError::UserNotFound`]; a port failure.
    pub(in crate::identity) async fn account(&self, user: UserId) -> Result<Account, IdentityError> {
        self.accounts.get(user).await?.ok_or(IdentityError::UserNotFound)
    }

    /// Starts a new session (a new refresh-token family) for the account and records the sign-in. A session
    /// started from an e-mailed link or code ([`AuthMethod::proves_email`]) of an unproven account first
    /// hands the account to the address's owner ([`Self::prove_address`]).
    pub(in crate::identity) async fn start_session(
        &self,
        account: Account,
        method: AuthMethod,
    ) -> Result<Session, IdentityError> {
        self.start_session_with(account, method, None).await
    }

    /// As [`Self::start_session`], for a sign-in that was also a second step (a passkey).
    pub(in crate::identity) async fn start_session_with(
        &self,
        mut account: Account,
        method: AuthMethod,
        second_step: Option<SecondStep>,
    ) -> Result<Session, IdentityError> {
        if method.proves_email() {
            // Verification proves the address before it starts a session; this keeps the rule for any
            // other caller of a proving method.
            self.prove_address(&mut account, None).await?;
        }
        let now = self.clock.now();
        let secret = self.secrets.token_hex(OPAQUE_TOKEN_BYTES);
        let mut token = RefreshToken::start(digest_secret(&secret), account.id, method, now);
        token.second_step = second_step;
        self.refresh_tokens.insert(&token).await?;
        self.accounts.touch_sign_in(account.id, now).await?;
        account.last_sign_in_at = Some(now);
        let user = self.user_record(account).await?;
        self.session_for(user, &token, secret).await
    }

    pub(in crate::identity) async fn user_record(
        &self,
        account: Account,
    ) -> Result<UserRecord, IdentityError> {
        let identities = self.links.list_for_user(account.id).await?;
        let factors = self.factors_of(account.id).await?;
        Ok(UserRecord {
            account,
            identities,
            factors,
        })
    }

    pub(in crate::identity) async fn session_for(
        &self,
        user: UserRecord,
        token: &RefreshToken,
        refresh_secret: String,
    ) -> Result<Session, IdentityError> {
        let now = self.clock.now();
        let claims = AccessTokenClaims::issue(
            AccessGrant {
                user_id: user.account.id,
                email: &user.account.email,
                session_id: token.family_id,
                method: token.method,
                authenticated_at: token.family_started_at,
                providers: user.providers(),
                user_metadata: user.account.profile.clone(),
                second_step: token.second_step,
            },
            &self.config.issuer,
            now,
        );
        let access_token = self
            .signer
            .sign_access(&claims)
            .await
            .map_err(IdentityError::Signing)?;
        Ok(Session {
            access_token,
            token_type: "bearer",
            expires_in: ACCESS_TOKEN_TTL_SECS,
            expires_at: claims.exp,
            refresh_token: refresh_secret,
            session_id: token.family_id,
            user,
            choose_password: false,
        })
    }

    /// Asks the assurance rule ([`crate::identity::assurance`]) whether the live session of `claims` may
    /// do `action`, from the session's head and what protects its account (one statement, the same read a
    /// product request makes). `reconfirmed` when the person just gave the current password again. A
    /// session below the level answers `insufficient` (each endpoint's Supabase wording).
    ///
    /// # Errors
    /// `insufficient`; [`IdentityError::ReauthenticationNeeded`] (a password change) or
    /// [`IdentityError::RecentSignInNeeded`] (anything else) when the first factor must be given again;
    /// [`IdentityError::SessionNotFound`] when the session is over; a port failure.
    pub(in crate::identity) async fn require(
        &self,
        claims: &AccessTokenClaims,
        action: Action,
        reconfirmed: bool,
        insufficient: IdentityError,
    ) -> Result<LiveSession, IdentityError> {
        let now = self.clock.now();
        let live = self
            .refresh_tokens
            .current_of_family_with_role(claims.session_id)
            .await?
            .filter(|live| live.head.user_id == claims.sub && live.head.check_usable(now).is_ok())
            .ok_or(IdentityError::SessionNotFound)?;
        let mut proof = SessionProof::of(&live.head);
        if reconfirmed {
            proof = proof.reconfirmed(now);
        }
        match AssuranceRules::default().check(Some(live.protection), proof, action, now) {
            Ok(()) => Ok(live),
            Err(Refusal::ReauthenticationNeeded) if action == Action::ChangePassword => {
                Err(IdentityError::ReauthenticationNeeded)
            }
            Err(Refusal::ReauthenticationNeeded) => Err(IdentityError::RecentSignInNeeded),
            Err(Refusal::InsufficientAal | Refusal::SecondFactorRequired { .. }) => Err(insufficient),
        }
    }

    /// Verifies an identity access token presented to the identity service itself. A core token, a refresh
    /// token or anything else is refused, and so is the token of a session that has ended (signed out,
    /// revoked for reuse, idle or too old), as Supabase Auth does.
    ///
    /// # Errors
    /// [`IdentityError::InvalidAccessToken`]; [`IdentityError::SessionNotFound`]; a port failure.
    pub async fn authenticate_access(&self, bearer: &str) -> Result<AccessTokenClaims, IdentityError> {
        let now = self.clock.now();
        let claims = self
            .signer
            .verify_access(bearer.trim(), now)
            .await
            .map_err(IdentityError::InvalidAccessToken)?;
        claims.check(now).map_err(IdentityError::InvalidAccessToken)?;
        let live = self
            .refresh_tokens
            .current_of_family(claims.session_id)
            .await?
            .is_some_and(|head| head.user_id == claims.sub && head.check_usable(now).is_ok());
        if !live {
            return Err(IdentityError::SessionNotFound);
        }
        Ok(claims)
    }

    /// The e-mail that tells the owner of an account that how it signs in changed (PRODUCT.md §1a); its
    /// link opens Account Security.
    pub(in crate::identity) fn security_notice(
        &self,
        to: &EmailAddress,
        change: SecurityChange<'_>,
        now: DateTime<Utc>,
    ) -> OutgoingEmail {
        let link = format!(
            "{}/account/security",
            self.config.public_url.trim_end_matches('/')
        );
        templates::security_notice(to, change, now, &link)
    }

    /// The factors of an account (for `GET /user`'s `factors`).
    /// Factors left unfinished ([`Factor::is_abandoned`]) are removed on the way.
    pub(in crate::identity) async fn factors_of(&self, user: UserId) -> Result<Vec<Factor>, IdentityError> {
        let now = self.clock.now();
        let mut factors = self.factors.list_for_user(user).await?;
        for abandoned in factors.iter().filter(|f| f.is_abandoned(now)) {
            self.factors.delete(user, abandoned.id, now, None).await?;
        }
        factors.retain(|f| !f.is_abandoned(now));
        Ok(factors)
    }
}
