//! Sessions of the built-in identity service (PRODUCT.md §1), the domain side of the Supabase-Auth-compatible
//! `/auth/v1` subset: [`SessionService`] (password sign-in, refresh, sign-out, the list of sessions) and
//! [`SessionIssuer`] (`issue`: what every way of signing in shares). Sign-up and e-mail codes, second
//! factors, the user endpoint and provider sign-in are services of the sibling folders, each holding the
//! issuer ([`crate::identity::services`] builds them).
//!
//! Sessions: an access token (one hour) and an opaque refresh token (32 random bytes, stored as a SHA-256
//! digest). Each refresh rotates the refresh token; presenting a rotated token again revokes its whole
//! family (session). A session ends after 7 days without a refresh, or 30 days after it started.
//!
//! Access tokens are stateless: after sign-out they stay valid until they expire (at most one hour).

mod issue;
pub mod list;
pub mod tokens;

pub use issue::{IssuerPorts, SessionIssuer};

use std::sync::Arc;

use crate::common::secrets::digest_secret;
use crate::common::{EmailAddress, RepoError, SecretGenerator};
use crate::identity::assurance::Action;
use crate::identity::attempts::Guarded;
use crate::identity::errors::IdentityError;
use crate::identity::factors::Factor;
use crate::identity::models::{Account, AuthMethod, ExternalIdentity, OPAQUE_TOKEN_BYTES, RefreshRefusal};
use crate::identity::ports::{
    AccountRepository, OneTimeCodeRepository, PasswordHasher, RefreshTokenRepository, SessionListRepository,
};
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::mail::templates::SecurityChange;

/// Settings of the identity service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentityConfig {
    /// Base of the links in e-mails (`PORTAL_PUBLIC_URL`), e.g. `https://portal.example.com`.
    pub public_url: String,
    /// `iss` of access tokens, e.g. `https://portal.example.com/auth/v1`.
    pub issuer: String,
    /// `true` when a mailer can deliver (SMTP configured): sign-up then sends a confirmation link and the
    /// account cannot sign in with its password until confirmed. `false` confirms accounts at once.
    pub require_email_confirmation: bool,
    /// `false` refuses new accounts (sign-up, e-mail links for unknown addresses, new provider accounts).
    pub signups_enabled: bool,
}

/// An account with the provider identities linked to it (the Supabase `user` object's data).
#[derive(Debug, Clone, PartialEq)]
pub struct UserRecord {
    pub account: Account,
    pub identities: Vec<ExternalIdentity>,
    /// The account's second factors (`GET /user`'s `factors`).
    pub factors: Vec<Factor>,
}

impl UserRecord {
    /// `email` (when the account has a password or no provider), then each linked provider once.
    #[must_use]
    pub fn providers(&self) -> Vec<String> {
        let mut providers = Vec::new();
        if self.account.password_hash.is_some() || self.identities.is_empty() {
            providers.push("email".to_owned());
        }
        for identity in &self.identities {
            if !providers.contains(&identity.provider) {
                providers.push(identity.provider.clone());
            }
        }
        providers
    }
}

/// A signed-in session, in the shape of Supabase's token response.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub access_token: String,
    /// Always `bearer`.
    pub token_type: &'static str,
    /// Seconds the access token lives (3600).
    pub expires_in: i64,
    /// When the access token expires (seconds since the epoch).
    pub expires_at: i64,
    /// The opaque refresh token; only its digest is stored.
    pub refresh_token: String,
    /// The session (refresh-token family) the tokens belong to (the access token's `session_id`).
    pub session_id: uuid::Uuid,
    pub user: UserRecord,
    /// This sign-in proved the address and removed a password someone had set before: the user is asked to
    /// choose one.
    pub choose_password: bool,
}

/// Which sessions a sign-out ends (Supabase's `scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignOutScope {
    /// Every session of the user (Supabase's default).
    #[default]
    Global,
    /// Only the session of the presented access token.
    Local,
    /// Every session except the presented one.
    Others,
}

/// Password sign-in, refresh, sign-out and the account's list of sessions. The answer to a password is
/// checked only inside the attempt guard ([`crate::identity::attempts::Guarded`]).
pub struct SessionService {
    issuer: Arc<SessionIssuer>,
    accounts: Arc<dyn AccountRepository>,
    codes: Arc<dyn OneTimeCodeRepository>,
    hasher: Arc<dyn PasswordHasher>,
    refresh_tokens: Arc<dyn RefreshTokenRepository>,
    session_list: Arc<dyn SessionListRepository>,
    secrets: Arc<dyn SecretGenerator>,
}

/// The ports of [`SessionService`] beside the issuer.
pub struct SessionPorts {
    pub accounts: Arc<dyn AccountRepository>,
    pub codes: Arc<dyn OneTimeCodeRepository>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub refresh_tokens: Arc<dyn RefreshTokenRepository>,
    pub session_list: Arc<dyn SessionListRepository>,
    pub secrets: Arc<dyn SecretGenerator>,
}

impl SessionService {
    #[must_use]
    pub fn new(issuer: Arc<SessionIssuer>, ports: SessionPorts) -> Self {
        Self {
            issuer,
            accounts: ports.accounts,
            codes: ports.codes,
            hasher: ports.hasher,
            refresh_tokens: ports.refresh_tokens,
            session_list: ports.session_list,
            secrets: ports.secrets,
        }
    }

    /// Verifies an identity access token presented to the identity service itself
    /// ([`SessionIssuer::authenticate_access`]).
    ///
    /// # Errors
    /// As [`SessionIssuer::authenticate_access`].
    pub async fn authenticate_access(&self, bearer: &str) -> Result<AccessTokenClaims, IdentityError> {
        self.issuer.authenticate_access(bearer).await
    }

    /// `POST /token?grant_type=password`. The answer to a wrong password is the same as to an e-mail without
    /// an account (and takes a hash verification too); only the right password of an unconfirmed account
    /// (the one its pending sign-up chose) learns "Email not confirmed".
    ///
    /// # Errors
    /// [`IdentityError::InvalidCredentials`], [`IdentityError::EmailNotConfirmed`], or a port failure.
    pub async fn sign_in_with_password(
        &self,
        _guarded: Guarded,
        email: &str,
        password: &str,
    ) -> Result<Session, IdentityError> {
        let account = match EmailAddress::parse(email) {
            Ok(address) => self.accounts.find_by_email(&address).await?,
            Err(_) => None,
        };
        // An unconfirmed account holds no password yet: its sign-up's password waits with its codes.
        let account = match account {
            Some(a) if a.password_hash.is_none() && !a.is_confirmed() => {
                let pending = self.codes.pending_password(&a.email, self.issuer.now()).await?;
                pending.map(|hash| (a, hash))
            }
            other => other.and_then(|a| a.password_hash.clone().map(|h| (a, h))),
        };
        let Some((account, hash)) = account else {
            self.hasher.waste_verify(password).await;
            return Err(IdentityError::InvalidCredentials);
        };
        if !self.hasher.verify(password, &hash).await? {
            return Err(IdentityError::InvalidCredentials);
        }
        if !account.is_confirmed() {
            return Err(IdentityError::EmailNotConfirmed);
        }
        self.issuer.start_session(account, AuthMethod::Password).await
    }

    /// `POST /token?grant_type=refresh_token`: exchanges a refresh token for a new session token pair.
    ///
    /// Presenting a token that was already exchanged (or losing the race to exchange it) revokes its whole
    /// family, so a stolen token stops working for thief and owner alike.
    ///
    /// # Errors
    /// [`IdentityError::RefreshTokenNotFound`] for an unknown token; [`IdentityError::RefreshTokenReused`]
    /// on reuse; [`IdentityError::SessionExpired`] for a revoked, idle (7 days) or old (30 days) session;
    /// [`IdentityError::UserNotFound`] when the account is gone; or a port failure.
    pub async fn refresh(&self, refresh_token: &str) -> Result<Session, IdentityError> {
        let now = self.issuer.now();
        let Some(old) = self
            .refresh_tokens
            .find_by_hash(&digest_secret(refresh_token))
            .await?
        else {
            return Err(IdentityError::RefreshTokenNotFound);
        };
        match old.check_usable(now) {
            Ok(()) => {}
            Err(RefreshRefusal::Revoked) => return Err(IdentityError::SessionExpired),
            Err(RefreshRefusal::Reused) => {
                // Theft: the session ends with the access tokens it made.
                self.refresh_tokens.end_stolen_family(old.family_id, now).await?;
                return Err(IdentityError::RefreshTokenReused);
            }
            Err(RefreshRefusal::Idle | RefreshRefusal::TooOld) => {
                self.refresh_tokens.revoke_family(old.family_id, now).await?;
                return Err(IdentityError::SessionExpired);
            }
        }
        let Some(account) = self.accounts.get(old.user_id).await? else {
            self.refresh_tokens.revoke_family(old.family_id, now).await?;
            return Err(IdentityError::UserNotFound);
        };
        let secret = self.secrets.token_hex(OPAQUE_TOKEN_BYTES);
        let successor = old.successor(digest_secret(&secret), now);
        match self.refresh_tokens.rotate(&old.token_hash, &successor, now).await {
            Ok(()) => {}
            Err(RepoError::Conflict(_)) => {
                self.refresh_tokens.revoke_family(old.family_id, now).await?;
                return Err(IdentityError::RefreshTokenReused);
            }
            Err(RepoError::NotFound) => return Err(IdentityError::RefreshTokenNotFound),
            Err(other) => return Err(other.into()),
        }
        let user = self.issuer.user_record(account).await?;
        self.issuer.session_for(user, &successor, secret).await
    }

    /// `POST /logout`: ends the presented session, all of the user's sessions, or all others.
    ///
    /// # Errors
    /// A port failure.
    pub async fn sign_out(
        &self,
        claims: &AccessTokenClaims,
        scope: SignOutScope,
    ) -> Result<(), IdentityError> {
        let now = self.issuer.now();
        // A session that may not end the others (a password alone, of a protected account) ends itself
        // when it asks for every session, and is refused when it asks for the others only.
        let scope = match scope {
            SignOutScope::Local => SignOutScope::Local,
            wide => {
                let allowed = self
                    .issuer
                    .require(
                        claims,
                        Action::EndOtherSessions,
                        false,
                        IdentityError::Aal2RequiredToSignOutOthers,
                    )
                    .await;
                match (wide, allowed) {
                    (_, Ok(_)) => wide,
                    (SignOutScope::Global, Err(IdentityError::Aal2RequiredToSignOutOthers)) => {
                        SignOutScope::Local
                    }
                    (_, Err(refused)) => return Err(refused),
                }
            }
        };
        match scope {
            SignOutScope::Local => self.refresh_tokens.revoke_family(claims.session_id, now).await?,
            SignOutScope::Global => {
                self.refresh_tokens
                    .revoke_all_for_user(claims.sub, None, now, None)
                    .await?
            }
            SignOutScope::Others => {
                // Ending the other sessions is a security step (the owner suspects one): they are told.
                let notice = self.issuer.security_notice(
                    &claims.email,
                    crate::mail::templates::SecurityChange::OtherSessionsSignedOut,
                    now,
                );
                self.refresh_tokens
                    .revoke_all_for_user(claims.sub, Some(claims.session_id), now, Some(notice))
                    .await?;
            }
        }
        Ok(())
    }

    /// The account of `email` took as many wrong second-factor answers as it may: whoever has only its
    /// password keeps no session, and the owner is told.
    ///
    /// # Errors
    /// A port failure.
    pub(in crate::identity) async fn stop_second_factor_guessing(
        &self,
        email: &str,
    ) -> Result<(), IdentityError> {
        let Ok(address) = crate::common::EmailAddress::parse(email) else {
            return Ok(());
        };
        let Some(account) = self.accounts.find_by_email(&address).await? else {
            return Ok(());
        };
        let now = self.issuer.now();
        let notice = self
            .issuer
            .security_notice(&account.email, SecurityChange::SecondFactorGuessing, now);
        self.session_list
            .end_aal1_sessions(account.id, None, now, Some(notice))
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::codes::six_digit_code;
    use crate::identity::models::{OneTimeCode, RefreshToken};
    use crate::identity::test_support::{Mocks, account, email, refresh_row, unproven_account};
    use crate::testing::{block_on, noon};
    use chrono::Duration;
    use mockall::predicate::eq;

    #[test]
    fn six_digit_codes_are_zero_padded_digits() {
        assert_eq!(six_digit_code(&[0, 0, 0, 0, 0, 0, 0, 7]), "000007");
        let code = six_digit_code(&[0xab; 8]);
        assert_eq!(code.len(), 6);
        assert!(code.chars().all(|c| c.is_ascii_digit()));
    }

    #[test]
    fn a_typed_code_digest_is_keyed_and_depends_on_the_email() {
        let service = Mocks::new().service();
        let digest = service.email.typed_code_digest(&email("a@x.io"), "123456");
        assert_ne!(
            digest,
            service.email.typed_code_digest(&email("b@x.io"), "123456")
        );
        assert_eq!(
            digest,
            service.email.typed_code_digest(&email("a@x.io"), " 123456 ")
        );
        // Not the unkeyed digest whoever holds a copy of the database could recompute.
        assert_ne!(digest, digest_secret("a@x.io\n123456"));
        assert_eq!(
            digest,
            crate::identity::test_support::digest_key().typed_code(&email("a@x.io"), "123456")
        );
    }

    #[test]
    fn the_right_password_of_a_confirmed_account_starts_a_session() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", true);
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.hasher
            .expect_verify()
            .withf(|p, h| p == "correct horse 9" && h == "hash")
            .returning(|_, _| Ok(true));
        m.allow_sessions();
        let session = block_on(m.service().sessions.sign_in_with_password(
            Guarded::for_tests(),
            "Dev@Example.com",
            "correct horse 9",
        ))
        .unwrap();
        assert_eq!(session.token_type, "bearer");
        assert_eq!(session.expires_in, 3600);
        assert_eq!(session.expires_at, noon().timestamp() + 3600);
        assert_eq!(session.refresh_token.len(), 64);
        assert_eq!(session.user.account.last_sign_in_at, Some(noon()));
    }

    #[test]
    fn a_password_session_does_not_prove_the_address() {
        let mut m = Mocks::new();
        let stored = unproven_account("dev@example.com");
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.hasher.expect_verify().returning(|_, _| Ok(true));
        m.accounts.expect_prove_email().never();
        m.allow_sessions();
        let session = block_on(m.service().sessions.sign_in_with_password(
            Guarded::for_tests(),
            "dev@example.com",
            "correct horse 9",
        ))
        .unwrap();
        assert!(!session.user.account.is_proven());
    }

    #[test]
    fn a_session_from_an_emailed_code_proves_an_address_confirmed_without_proof() {
        // No mailer: the account was confirmed at sign-up. Using a code that went to the address proves it.
        let mut m = Mocks::new();
        let stored = unproven_account("dev@example.com");
        let id = stored.id;
        m.codes.expect_consume().returning(|_, purpose, now| {
            let mut code = OneTimeCode::issue(purpose, email("dev@example.com"), "d".into(), now);
            code.used_at = Some(now);
            Ok(Some(code))
        });
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.accounts
            .expect_prove_email()
            .with(eq(id), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        // Whoever signed up may not own the mailbox: the password set before the proof goes (see `proof`).
        m.accounts
            .expect_set_password()
            .with(eq(id), eq(None), eq(noon()), mockall::predicate::always())
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.allow_sessions();
        let session = block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            crate::identity::codes::VerifyKind::MagicLink,
            crate::identity::codes::VerifySecret::Link("link-token"),
            None,
        ))
        .unwrap();
        assert_eq!(session.user.account.email_proven_at, Some(noon()));
    }

    #[test]
    fn a_wrong_password_and_an_unknown_email_get_the_same_answer() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", true);
        m.accounts
            .expect_find_by_email()
            .with(eq(email("dev@example.com")))
            .returning(move |_| Ok(Some(stored.clone())));
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.hasher.expect_verify().returning(|_, _| Ok(false));
        m.hasher.expect_waste_verify().times(2).return_const(());
        let service = m.service();
        let wrong = block_on(service.sessions.sign_in_with_password(
            Guarded::for_tests(),
            "dev@example.com",
            "not the password",
        ))
        .unwrap_err();
        let unknown = block_on(service.sessions.sign_in_with_password(
            Guarded::for_tests(),
            "nobody@example.com",
            "whatever-pass",
        ))
        .unwrap_err();
        let malformed = block_on(service.sessions.sign_in_with_password(
            Guarded::for_tests(),
            "not-an-email",
            "whatever-pass",
        ))
        .unwrap_err();
        for error in [wrong, unknown, malformed] {
            assert!(matches!(error, IdentityError::InvalidCredentials));
            assert_eq!(error.to_string(), "Invalid login credentials");
        }
    }

    #[test]
    fn an_account_without_a_password_cannot_sign_in_with_one() {
        let mut m = Mocks::new();
        let mut stored = account("dev@example.com", true);
        stored.password_hash = None;
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.hasher.expect_waste_verify().times(1).return_const(());
        let error = block_on(m.service().sessions.sign_in_with_password(
            Guarded::for_tests(),
            "dev@example.com",
            "anything-goes",
        ))
        .unwrap_err();
        assert!(matches!(error, IdentityError::InvalidCredentials));
    }

    #[test]
    fn an_unconfirmed_account_with_the_right_password_is_told_to_confirm() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", false);
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.hasher.expect_verify().returning(|_, _| Ok(true));
        let error = block_on(m.service().sessions.sign_in_with_password(
            Guarded::for_tests(),
            "dev@example.com",
            "right-password",
        ))
        .unwrap_err();
        assert_eq!(error.to_string(), "Email not confirmed");
    }

    #[test]
    fn the_password_of_a_pending_sign_up_is_told_to_confirm_and_another_is_invalid() {
        let mut m = Mocks::new();
        let mut stored = account("dev@example.com", false);
        stored.password_hash = None;
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.codes
            .expect_pending_password()
            .with(eq(email("dev@example.com")), eq(noon()))
            .returning(|_, _| Ok(Some("pending".into())));
        m.hasher
            .expect_verify()
            .returning(|p, h| Ok(h == "pending" && p == "right-password"));
        let service = m.service();
        let right = block_on(service.sessions.sign_in_with_password(
            Guarded::for_tests(),
            "dev@example.com",
            "right-password",
        ));
        assert!(matches!(right, Err(IdentityError::EmailNotConfirmed)));
        let wrong = block_on(service.sessions.sign_in_with_password(
            Guarded::for_tests(),
            "dev@example.com",
            "wrong-password",
        ));
        assert!(matches!(wrong, Err(IdentityError::InvalidCredentials)));
    }

    #[test]
    fn a_refresh_rotates_the_token_within_the_same_family() {
        let mut m = Mocks::new();
        let old = refresh_row(noon() - Duration::hours(2));
        let family = old.family_id;
        let user = old.user_id;
        let presented = "old-secret";
        let old_hash = digest_secret(presented);
        let row = RefreshToken {
            token_hash: old_hash.clone(),
            ..old
        };
        m.refresh_tokens
            .expect_find_by_hash()
            .with(eq(old_hash.clone()))
            .returning(move |_| Ok(Some(row.clone())));
        let mut stored = account("dev@example.com", true);
        stored.id = user;
        m.accounts
            .expect_get()
            .with(eq(user))
            .returning(move |_| Ok(Some(stored.clone())));
        m.refresh_tokens
            .expect_rotate()
            .withf(move |old, new, _| old == old_hash && new.family_id == family && new.replaced_by.is_none())
            .times(1)
            .returning(|_, _, _| Ok(()));
        m.links.expect_list_for_user().returning(|_| Ok(vec![]));
        m.signer
            .expect_sign_access()
            .withf(move |c| c.session_id == family && c.amr[0].method == "password")
            .returning(|_| Ok("access".into()));
        let session = block_on(m.service().sessions.refresh(presented)).unwrap();
        assert_ne!(session.refresh_token, presented);
        assert_eq!(session.access_token, "access");
    }

    #[test]
    fn reusing_a_rotated_refresh_token_revokes_the_whole_family() {
        let mut m = Mocks::new();
        let mut old = refresh_row(noon() - Duration::hours(2));
        old.replaced_by = Some("successor".into());
        let family = old.family_id;
        m.refresh_tokens
            .expect_find_by_hash()
            .returning(move |_| Ok(Some(old.clone())));
        m.refresh_tokens
            .expect_end_stolen_family()
            .with(eq(family), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        let error = block_on(m.service().sessions.refresh("stolen")).unwrap_err();
        assert!(matches!(error, IdentityError::RefreshTokenReused));
        assert_eq!(error.to_string(), "Invalid Refresh Token: Already Used");
    }

    #[test]
    fn losing_the_rotation_race_counts_as_reuse() {
        let mut m = Mocks::new();
        let old = refresh_row(noon() - Duration::minutes(5));
        let (family, user) = (old.family_id, old.user_id);
        m.refresh_tokens
            .expect_find_by_hash()
            .returning(move |_| Ok(Some(old.clone())));
        m.accounts.expect_get().returning(move |_| {
            let mut a = account("dev@example.com", true);
            a.id = user;
            Ok(Some(a))
        });
        m.refresh_tokens
            .expect_rotate()
            .returning(|_, _, _| Err(RepoError::Conflict("already used".into())));
        m.refresh_tokens
            .expect_revoke_family()
            .with(eq(family), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        let error = block_on(m.service().sessions.refresh("twice")).unwrap_err();
        assert!(matches!(error, IdentityError::RefreshTokenReused));
    }

    #[test]
    fn an_idle_or_old_session_cannot_refresh_and_is_revoked() {
        for (last_used, started) in [
            (Duration::days(8), Duration::days(8)),
            (Duration::hours(1), Duration::days(31)),
        ] {
            let mut m = Mocks::new();
            let mut old = refresh_row(noon() - last_used);
            old.family_started_at = noon() - started;
            m.refresh_tokens
                .expect_find_by_hash()
                .returning(move |_| Ok(Some(old.clone())));
            m.refresh_tokens
                .expect_revoke_family()
                .times(1)
                .returning(|_, _| Ok(()));
            let error = block_on(m.service().sessions.refresh("late")).unwrap_err();
            assert_eq!(error.to_string(), "Invalid Refresh Token: Session Expired");
        }
    }

    #[test]
    fn an_unknown_or_signed_out_refresh_token_is_refused() {
        let mut m = Mocks::new();
        let mut revoked = refresh_row(noon());
        revoked.revoked_at = Some(noon());
        let revoked_hash = digest_secret("revoked");
        m.refresh_tokens
            .expect_find_by_hash()
            .with(eq(revoked_hash))
            .returning(move |_| Ok(Some(revoked.clone())));
        m.refresh_tokens.expect_find_by_hash().returning(|_| Ok(None));
        let service = m.service();
        assert!(matches!(
            block_on(service.sessions.refresh("unknown")),
            Err(IdentityError::RefreshTokenNotFound)
        ));
        assert!(matches!(
            block_on(service.sessions.refresh("revoked")),
            Err(IdentityError::SessionExpired)
        ));
    }

    #[test]
    fn signing_out_revokes_the_session_family_or_all_sessions() {
        let claims = crate::identity::test_support::access_claims(noon());
        let (family, user) = (claims.session_id, claims.sub);
        let mut m = Mocks::new();
        // Signing out everywhere or the others asks the assurance rule, which reads the live session (an
        // account without a second factor: any of its sessions may end the others).
        m.live_session(&claims, false);
        m.refresh_tokens
            .expect_revoke_family()
            .with(eq(family), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .with(eq(user), eq(None), eq(noon()), eq(None))
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .withf(move |who, keep, at, notice| {
                // Ending the other sessions tells the owner; signing out everywhere is an ordinary sign-out.
                *who == user
                    && *keep == Some(family)
                    && *at == noon()
                    && notice
                        .as_ref()
                        .is_some_and(|mail| mail.text.contains("other sessions were signed out"))
            })
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let service = m.service();
        block_on(service.sessions.sign_out(&claims, SignOutScope::Local)).unwrap();
        block_on(service.sessions.sign_out(&claims, SignOutScope::Global)).unwrap();
        block_on(service.sessions.sign_out(&claims, SignOutScope::Others)).unwrap();
    }

    #[test]
    fn a_password_alone_of_a_protected_account_signs_only_itself_out() {
        let claims = crate::identity::test_support::access_claims(noon());
        let family = claims.session_id;
        let mut m = Mocks::new();
        let mut totp =
            crate::identity::test_support::factor(crate::identity::factors::FactorStatus::Verified);
        totp.user_id = claims.sub;
        m.factors.factors.lock().unwrap().push(totp);
        m.live_session(&claims, false);
        // Everywhere becomes this session only; the others alone are refused.
        m.refresh_tokens
            .expect_revoke_family()
            .with(eq(family), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        m.refresh_tokens.expect_revoke_all_for_user().never();
        let service = m.service();
        block_on(service.sessions.sign_out(&claims, SignOutScope::Global)).unwrap();
        let refused = block_on(service.sessions.sign_out(&claims, SignOutScope::Others)).unwrap_err();
        assert!(matches!(refused, IdentityError::Aal2RequiredToSignOutOthers));
        assert_eq!(refused.error_code(), "insufficient_aal");
    }

    #[test]
    fn providers_list_email_then_each_linked_provider_once() {
        let mut record = UserRecord {
            account: account("a@x.io", true),
            identities: vec![],
            factors: vec![],
        };
        assert_eq!(record.providers(), ["email"]);
        let link = crate::identity::test_support::identity("google", record.account.id);
        record.identities = vec![link.clone(), link];
        assert_eq!(record.providers(), ["email", "google"]);
        record.account.password_hash = None;
        assert_eq!(record.providers(), ["google"]);
    }
}
