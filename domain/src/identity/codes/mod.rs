//! E-mail links and codes: magic link / one-time code (`POST /otp`), password recovery (`POST /recover`) and
//! their verification (`POST|GET /verify`).
//!
//! Requests answer the same whether or not the address has an account. Each request sends one e-mail with a
//! link token (32 random bytes) and a six-digit code; both are stored only as digests (the code's keyed with
//! the server's key, so a copy of the database does not give it away), valid 15 minutes, and using either
//! one uses up both (the repository's `consume` marks every code of that e-mail and purpose). A new request
//! retires the earlier unused codes of the same address and purpose.
//!
//! [`MAX_FAILED_CODES`](crate::identity::models::MAX_FAILED_CODES) wrong typed codes for an address (counted in the
//! store, so across instances) use up the live typed codes of that address for the purposes tried, never
//! its e-mailed links (nobody can kill the owner's link by typing wrong codes); a right one clears the count. A link's token
//! names no address, so a wrong one counts against none (the per-IP rate limit bounds those guesses, and
//! 256-bit tokens cannot be guessed anyway).
//!
//! Verifying a code proves the mailbox. The first proof of an address hands the account to its owner (see
//! [`crate::identity::signup::proof`]): the account's password becomes the one its sign-up chose only if the code comes back
//! from the browser that signed up (the `browser` value its answer left there); every other password set
//! before the proof goes, and so does every session: whoever chose them had not proved owning the address,
//! so a stranger who signs up with someone else's address keeps nothing once the owner proves it.

pub mod emails;
mod sending;

pub(in crate::identity) use sending::PendingSignUp;
pub use sending::six_digit_code;

use crate::common::email::INVALID_EMAIL;
use crate::common::secrets::{digest_secret, digests_match};
use crate::common::{EmailAddress, RepoError};
use crate::identity::errors::{FieldErrors, IdentityError};
use crate::identity::models::{Account, OneTimeCode, OtpPurpose};
use std::sync::Arc;

use crate::common::SecretGenerator;
use crate::identity::digests::DigestKey;
use crate::identity::ports::{AccountRepository, OneTimeCodeRepository, PasswordHasher};
use crate::identity::rate_limit::{AuthAction, VolumeLimits};
use crate::identity::sessions::{Session, SessionIssuer};

/// Supabase's verification `type`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyKind {
    Signup,
    MagicLink,
    Recovery,
    /// `email`: a code from a sign-up or a magic-link e-mail.
    Email,
}

impl VerifyKind {
    /// Reads Supabase's `type` (`invite` and `email_change` are not offered).
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "signup" => Some(Self::Signup),
            "magiclink" => Some(Self::MagicLink),
            "recovery" => Some(Self::Recovery),
            "email" => Some(Self::Email),
            _ => None,
        }
    }

    const fn purposes(self) -> &'static [OtpPurpose] {
        match self {
            Self::Signup => &[OtpPurpose::Signup],
            Self::MagicLink => &[OtpPurpose::MagicLink],
            Self::Recovery => &[OtpPurpose::Recovery],
            Self::Email => &[OtpPurpose::MagicLink, OtpPurpose::Signup],
        }
    }
}

/// What the user presents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifySecret<'a> {
    /// The token of an e-mail link (Supabase's `token_hash`, or `token` of `GET /verify`).
    Link(&'a str),
    /// A typed six-digit code with the address it was sent to.
    Code { email: &'a str, code: &'a str },
}

/// Signing in by e-mail: sign-up, magic links and six-digit codes, password recovery, and verifying what
/// the e-mails carry (the first proof of an address).
pub struct EmailSignIn {
    pub(in crate::identity) issuer: Arc<SessionIssuer>,
    pub(in crate::identity) accounts: Arc<dyn AccountRepository>,
    pub(in crate::identity) codes: Arc<dyn OneTimeCodeRepository>,
    pub(in crate::identity) hasher: Arc<dyn PasswordHasher>,
    pub(in crate::identity) secrets: Arc<dyn SecretGenerator>,
    /// The key of typed-code digests and sign-up decoy ids (a value from the server secret).
    pub(in crate::identity) digest_key: DigestKey,
    /// Every use case here admits the client's request first.
    pub(in crate::identity) limits: VolumeLimits,
}

/// The ports of [`EmailSignIn`] beside the issuer.
pub struct EmailPorts {
    pub accounts: Arc<dyn AccountRepository>,
    pub codes: Arc<dyn OneTimeCodeRepository>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub secrets: Arc<dyn SecretGenerator>,
    pub digest_key: DigestKey,
    pub limits: VolumeLimits,
}

impl EmailSignIn {
    #[must_use]
    pub fn new(issuer: Arc<SessionIssuer>, ports: EmailPorts) -> Self {
        Self {
            issuer,
            accounts: ports.accounts,
            codes: ports.codes,
            hasher: ports.hasher,
            secrets: ports.secrets,
            digest_key: ports.digest_key,
            limits: ports.limits,
        }
    }
}

impl EmailSignIn {
    /// `POST /otp`: e-mails a sign-in link and code. For an unknown address, creates an account without a
    /// password when `create_user` is set, sign-ups are on and a mailer can deliver the link, else sends
    /// nothing. Same answer either way. (Without a mailer nobody could follow the link: an account made then
    /// would only stop the address's owner from signing up.)
    ///
    /// # Errors
    /// [`IdentityError::EmailRateLimited`] past the volume limits of `client` or the address;
    /// [`IdentityError::Validation`] (`email`) for an address that does not look like one; a port failure.
    pub async fn request_magic_link(
        &self,
        client: &str,
        email: &str,
        create_user: bool,
        redirect_to: Option<&str>,
    ) -> Result<(), IdentityError> {
        self.limits.admit(AuthAction::Otp, client, Some(email)).await?;
        let email = parse_email(email)?;
        if self.accounts.find_by_email(&email).await?.is_none() {
            let mail_delivers = self.issuer.config().require_email_confirmation;
            if !(create_user && self.issuer.config().signups_enabled && mail_delivers) {
                return Ok(());
            }
            match self
                .accounts
                .create(&Account::new(email.clone(), self.issuer.now()))
                .await
            {
                Ok(()) | Err(RepoError::Duplicate(_)) => {}
                Err(other) => return Err(other.into()),
            }
        }
        self.send_codes(OtpPurpose::MagicLink, &email, redirect_to, None)
            .await
    }

    /// `POST /recover`: e-mails a password-reset link and code when the address has an account. Same answer
    /// either way.
    ///
    /// # Errors
    /// [`IdentityError::EmailRateLimited`] past the volume limits of `client` or the address;
    /// [`IdentityError::Validation`] (`email`) for an address that does not look like one; a port failure.
    pub async fn request_recovery(
        &self,
        client: &str,
        email: &str,
        redirect_to: Option<&str>,
    ) -> Result<(), IdentityError> {
        self.limits
            .admit(AuthAction::Recover, client, Some(email))
            .await?;
        let email = parse_email(email)?;
        if self.accounts.find_by_email(&email).await?.is_some() {
            self.send_codes(OtpPurpose::Recovery, &email, redirect_to, None)
                .await?;
        }
        Ok(())
    }

    /// `POST|GET /verify`: uses up a link or code and starts a session (a recovery session lets the user set
    /// a new password with `update_user`). `browser` is the value a sign-up answer left in the browser that
    /// presents the code (its cookie), if any.
    ///
    /// # Errors
    /// [`IdentityError::InvalidCode`] when the code is unknown, of another kind, used or expired (or its
    /// account is gone); [`IdentityError::RateLimited`] past the volume limits of `client` (or of the
    /// address a code was typed for); a port failure.
    pub async fn verify(
        &self,
        client: &str,
        kind: VerifyKind,
        secret: VerifySecret<'_>,
        browser: Option<&str>,
    ) -> Result<Session, IdentityError> {
        let typed_to = match secret {
            VerifySecret::Code { email, .. } => Some(email),
            VerifySecret::Link(_) => None,
        };
        self.limits.admit(AuthAction::Verify, client, typed_to).await?;
        let now = self.issuer.now();
        let (digest, typed_for) = match secret {
            VerifySecret::Link(token) => (digest_secret(token.trim()), None),
            VerifySecret::Code { email, code } => {
                let email = EmailAddress::parse(email).map_err(|_| IdentityError::InvalidCode)?;
                (self.typed_code_digest(&email, code), Some(email))
            }
        };
        let mut consumed = None;
        for purpose in kind.purposes() {
            consumed = self.codes.consume(&digest, *purpose, now).await?;
            if consumed.is_some() {
                break;
            }
        }
        let Some(code) = consumed else {
            if let Some(email) = typed_for {
                // The answer is the same whether or not this failure used up the address's codes.
                self.codes
                    .record_failed_code(&email, kind.purposes(), now)
                    .await?;
            }
            return Err(IdentityError::InvalidCode);
        };
        let Some(mut account) = self.accounts.find_by_email(&code.email).await? else {
            return Err(IdentityError::InvalidCode);
        };
        // The mailbox owner is here: a first proof hands the account over (see `proof`). Only the sign-up's
        // own browser keeps the password it chose; any other password goes.
        let kept = code
            .pending_password_hash
            .clone()
            .filter(|_| from_signing_up_browser(&code, browser));
        let proof = self.issuer.prove_address(&mut account, kept).await?;
        let typed = typed_for.is_some();
        let mut session = self
            .issuer
            .start_session(account, code.purpose.auth_method(typed))
            .await?;
        session.choose_password = proof.password_removed;
        Ok(session)
    }
}

/// Whether a sign-up code comes back with the value its sign-up left in the browser.
fn from_signing_up_browser(code: &OneTimeCode, browser: Option<&str>) -> bool {
    code.purpose == OtpPurpose::Signup
        && matches!(
            (code.browser_hash.as_deref(), browser.map(str::trim).filter(|b| !b.is_empty())),
            (Some(stored), Some(presented)) if digests_match(stored, &digest_secret(presented))
        )
}

fn parse_email(input: &str) -> Result<EmailAddress, IdentityError> {
    EmailAddress::parse(input)
        .map_err(|_| IdentityError::Validation(FieldErrors::single("email", INVALID_EMAIL)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::models::OneTimeCode;
    use crate::identity::services::IdentityServices;
    use crate::identity::test_support::{InMemoryCodes, Mocks, account, config, email};
    use crate::mail::EmailKind;
    use crate::testing::{block_on, noon};
    use mockall::predicate::eq;

    fn consumed(purpose: OtpPurpose, address: &str) -> OneTimeCode {
        let mut code = OneTimeCode::issue(purpose, email(address), "d".into(), noon());
        code.used_at = Some(noon());
        code
    }

    #[test]
    fn a_magic_link_request_for_an_account_sends_a_link_and_a_code() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.codes
            .expect_insert_with_email()
            .withf(|codes, mail| {
                codes.iter().all(|c| {
                    c.purpose == OtpPurpose::MagicLink
                        && c.expires_at == noon() + chrono::Duration::minutes(15)
                }) && mail.kind == EmailKind::MagicLink
                    && mail
                        .link
                        .as_deref()
                        .is_some_and(|l| l.starts_with("https://portal.test/auth/v1/verify?token="))
            })
            .times(1)
            .returning(|_, _| Ok(()));
        block_on(m.service().email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
    }

    #[test]
    fn the_stored_digest_is_never_the_secret_sent_in_the_email() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.codes
            .expect_insert_with_email()
            .withf(|codes, mail| {
                let link = mail.link.clone().unwrap_or_default();
                let token = link
                    .split("token=")
                    .nth(1)
                    .unwrap_or("")
                    .split('&')
                    .next()
                    .unwrap_or("");
                token.len() == 64
                    && codes[0].code_hash == digest_secret(token)
                    && !mail.text.contains(&codes[0].code_hash)
                    && !mail.text.contains(&codes[1].code_hash)
            })
            .times(1)
            .returning(|_, _| Ok(()));
        block_on(m.service().email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
    }

    #[test]
    fn a_magic_link_request_for_an_unknown_address_answers_the_same_and_sends_nothing() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        assert!(
            block_on(m.service().email.request_magic_link(
                crate::identity::test_support::CLIENT,
                "ghost@example.com",
                false,
                None
            ))
            .is_ok()
        );
    }

    #[test]
    fn a_magic_link_request_may_create_a_passwordless_account() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.accounts
            .expect_create()
            .withf(|a| a.password_hash.is_none() && !a.is_confirmed())
            .times(1)
            .returning(|_| Ok(()));
        m.codes
            .expect_insert_with_email()
            .times(1)
            .returning(|_, _| Ok(()));
        let with_mailer = m.service_with(crate::identity::sessions::IdentityConfig {
            require_email_confirmation: true,
            ..config()
        });
        block_on(with_mailer.email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "new@example.com",
            true,
            None,
        ))
        .unwrap();
    }

    #[test]
    fn no_account_is_created_by_a_magic_link_when_no_mailer_could_deliver_it() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.accounts.expect_create().never();
        m.codes.expect_insert_with_email().never();
        let service = m.service_with(crate::identity::sessions::IdentityConfig {
            require_email_confirmation: false,
            ..config()
        });
        assert!(
            block_on(service.email.request_magic_link(
                crate::identity::test_support::CLIENT,
                "new@example.com",
                true,
                None
            ))
            .is_ok()
        );
    }

    #[test]
    fn no_account_is_created_by_a_magic_link_when_sign_ups_are_off() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        let service = m.service_with(crate::identity::sessions::IdentityConfig {
            signups_enabled: false,
            ..config()
        });
        assert!(
            block_on(service.email.request_magic_link(
                crate::identity::test_support::CLIENT,
                "new@example.com",
                true,
                None
            ))
            .is_ok()
        );
    }

    #[test]
    fn recovery_answers_the_same_whether_or_not_the_account_exists() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .with(eq(email("dev@example.com")))
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.codes
            .expect_insert_with_email()
            .withf(|codes, mail| {
                codes[0].purpose == OtpPurpose::Recovery && mail.kind == EmailKind::PasswordRecovery
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let service = m.service();
        let known = block_on(service.email.request_recovery(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            None,
        ));
        let unknown = block_on(service.email.request_recovery(
            crate::identity::test_support::CLIENT,
            "ghost@example.com",
            None,
        ));
        assert!(known.is_ok() && unknown.is_ok());
    }

    #[test]
    fn a_request_for_a_malformed_address_is_a_validation_error() {
        let error = block_on(Mocks::new().service().email.request_recovery(
            crate::identity::test_support::CLIENT,
            "nope",
            None,
        ))
        .unwrap_err();
        assert_eq!(
            error.fields().unwrap().get("email"),
            Some("Please enter a valid email address")
        );
    }

    #[test]
    fn verifying_a_link_uses_it_up_and_starts_a_session() {
        let mut m = Mocks::new();
        m.codes
            .expect_consume()
            .with(
                eq(digest_secret("link-token")),
                eq(OtpPurpose::MagicLink),
                eq(noon()),
            )
            .times(1)
            .returning(|_, _, _| Ok(Some(consumed(OtpPurpose::MagicLink, "dev@example.com"))));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_sessions();
        let session = block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::MagicLink,
            VerifySecret::Link("link-token"),
            None,
        ))
        .unwrap();
        assert_eq!(session.user.account.email.as_str(), "dev@example.com");
    }

    #[test]
    fn a_used_or_expired_code_is_refused() {
        let mut m = Mocks::new();
        m.codes.expect_consume().returning(|_, _, _| Ok(None));
        let error = block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::Recovery,
            VerifySecret::Link("again"),
            None,
        ))
        .unwrap_err();
        assert!(matches!(error, IdentityError::InvalidCode));
        assert_eq!(error.to_string(), "Token has expired or is invalid");
        assert_eq!(error.error_code(), "otp_expired");
    }

    #[test]
    fn a_typed_code_is_looked_up_with_its_email_and_the_email_type_tries_both_purposes() {
        let mut m = Mocks::new();
        let digest =
            crate::identity::test_support::digest_key().typed_code(&email("dev@example.com"), "123456");
        m.codes
            .expect_consume()
            .with(eq(digest.clone()), eq(OtpPurpose::MagicLink), eq(noon()))
            .times(1)
            .returning(|_, _, _| Ok(None));
        m.codes
            .expect_consume()
            .with(eq(digest), eq(OtpPurpose::Signup), eq(noon()))
            .times(1)
            .returning(|_, _, _| Ok(Some(consumed(OtpPurpose::Signup, "dev@example.com"))));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_session_storage();
        m.signer
            .expect_sign_access()
            .withf(|c| c.amr[0].method == "otp")
            .returning(|_| Ok("access".into()));
        let secret = VerifySecret::Code {
            email: "Dev@Example.com",
            code: "123456",
        };
        block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::Email,
            secret,
            None,
        ))
        .unwrap();
    }

    /// A sign-up code carrying the password `pending` chosen from the browser that holds `browser`.
    fn sign_up_code(pending: &str, browser: &str) -> OneTimeCode {
        let mut code = consumed(OtpPurpose::Signup, "dev@example.com");
        code.pending_password_hash = Some(pending.into());
        code.browser_hash = Some(digest_secret(browser));
        code
    }

    /// Verifies a sign-up link from a browser holding `browser` (or none) for an unconfirmed account with
    /// the password hash `hash`, expecting the account's password to become `installed`.
    fn confirm_sign_up(browser: Option<&str>, installed: Option<&'static str>) -> Session {
        let mut m = Mocks::new();
        m.codes
            .expect_consume()
            .returning(|_, _, _| Ok(Some(sign_up_code("hash-chosen-at-sign-up", "browser-value"))));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", false))));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.accounts
            .expect_set_password()
            .withf(move |_, hash, _, _| hash.as_deref() == installed)
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.allow_sessions();
        block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::Signup,
            VerifySecret::Link("t"),
            browser,
        ))
        .unwrap()
    }

    #[test]
    fn confirming_a_sign_up_from_the_browser_that_signed_up_installs_its_password() {
        let session = confirm_sign_up(Some("browser-value"), Some("hash-chosen-at-sign-up"));
        assert_eq!(session.user.account.email_confirmed_at, Some(noon()));
        assert_eq!(
            session.user.account.password_hash.as_deref(),
            Some("hash-chosen-at-sign-up")
        );
    }

    #[test]
    fn confirming_a_sign_up_from_another_browser_confirms_and_signs_in_without_a_password() {
        for browser in [None, Some("another-browser"), Some("")] {
            let session = confirm_sign_up(browser, None);
            assert_eq!(session.user.account.email_confirmed_at, Some(noon()));
            // Neither the sign-up's password nor one already on the unconfirmed account survives.
            assert!(session.user.account.password_hash.is_none(), "{browser:?}");
        }
    }

    #[test]
    fn a_typed_sign_up_code_from_the_browser_that_signed_up_installs_its_password_too() {
        let mut m = Mocks::new();
        m.codes.expect_consume().returning(|_, purpose, _| {
            Ok((purpose == OtpPurpose::Signup).then(|| sign_up_code("chosen", "browser-value")))
        });
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", false))));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.accounts
            .expect_set_password()
            .withf(|_, hash, _, _| hash.as_deref() == Some("chosen"))
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.allow_sessions();
        let code = VerifySecret::Code {
            email: "dev@example.com",
            code: "123456",
        };
        block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::Email,
            code,
            Some("browser-value"),
        ))
        .unwrap();
    }

    #[test]
    fn the_browser_value_of_a_magic_link_installs_nothing() {
        let mut m = Mocks::new();
        m.codes.expect_consume().returning(|_, _, _| {
            let mut code = sign_up_code("chosen", "browser-value");
            code.purpose = OtpPurpose::MagicLink;
            Ok(Some(code))
        });
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", false))));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.accounts
            .expect_set_password()
            .withf(|_, hash, _, _| hash.is_none())
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.allow_sessions();
        block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::MagicLink,
            VerifySecret::Link("t"),
            Some("browser-value"),
        ))
        .unwrap();
    }

    #[test]
    fn a_magic_link_that_first_confirms_an_account_removes_a_password_set_by_someone_else() {
        let mut m = Mocks::new();
        m.codes
            .expect_consume()
            .returning(|_, _, _| Ok(Some(consumed(OtpPurpose::MagicLink, "dev@example.com"))));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", false))));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.accounts
            .expect_set_password()
            .withf(|_, hash, _, _| hash.is_none())
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.allow_sessions();
        let session = block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::MagicLink,
            VerifySecret::Link("t"),
            None,
        ))
        .unwrap();
        assert!(session.user.account.password_hash.is_none());
    }

    #[test]
    fn a_link_or_code_that_first_proves_a_squatted_address_ends_the_squatters_password_and_sessions() {
        let cases = [
            (VerifyKind::MagicLink, OtpPurpose::MagicLink, false),
            (VerifyKind::Email, OtpPurpose::MagicLink, true),
            (VerifyKind::Recovery, OtpPurpose::Recovery, false),
        ];
        for (kind, purpose, typed) in cases {
            let mut m = Mocks::new();
            let squatted = crate::identity::test_support::unproven_account("owner@example.com");
            let id = squatted.id;
            m.codes
                .expect_consume()
                .returning(move |_, _, _| Ok(Some(consumed(purpose, "owner@example.com"))));
            m.accounts
                .expect_find_by_email()
                .returning(move |_| Ok(Some(squatted.clone())));
            m.accounts
                .expect_set_password()
                .with(eq(id), eq(None), eq(noon()), mockall::predicate::always())
                .times(1)
                .returning(|_, _, _, _| Ok(()));
            m.refresh_tokens
                .expect_revoke_all_for_user()
                .with(eq(id), eq(None), eq(noon()), mockall::predicate::always())
                .times(1)
                .returning(|_, _, _, _| Ok(()));
            m.accounts
                .expect_prove_email()
                .with(eq(id), eq(noon()))
                .times(1)
                .returning(|_, _| Ok(()));
            m.refresh_tokens.expect_insert().returning(|_| Ok(()));
            m.accounts.expect_touch_sign_in().returning(|_, _| Ok(()));
            m.links.expect_list_for_user().returning(|_| Ok(vec![]));
            m.signer
                .expect_sign_access()
                .returning(|_| Ok("access-token".into()));
            let secret = if typed {
                VerifySecret::Code {
                    email: "owner@example.com",
                    code: "123456",
                }
            } else {
                VerifySecret::Link("t")
            };
            let session = block_on(m.service().email.verify(
                crate::identity::test_support::CLIENT,
                kind,
                secret,
                None,
            ))
            .unwrap();
            assert!(session.user.account.password_hash.is_none(), "{kind:?}");
            assert!(session.user.account.is_proven(), "{kind:?}");
            assert!(session.choose_password, "{kind:?}");
        }
    }

    #[test]
    fn a_link_for_an_address_already_proven_changes_nothing_and_asks_for_nothing() {
        let mut m = Mocks::new();
        m.codes
            .expect_consume()
            .returning(|_, _, _| Ok(Some(consumed(OtpPurpose::MagicLink, "dev@example.com"))));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.accounts.expect_set_password().never();
        m.refresh_tokens.expect_revoke_all_for_user().never();
        m.allow_sessions();
        let session = block_on(m.service().email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::MagicLink,
            VerifySecret::Link("t"),
            None,
        ))
        .unwrap();
        assert!(session.user.account.password_hash.is_some() && !session.choose_password);
    }

    #[test]
    fn a_code_whose_account_is_gone_is_refused() {
        let mut m = Mocks::new();
        m.codes
            .expect_consume()
            .returning(|_, _, _| Ok(Some(consumed(OtpPurpose::Recovery, "gone@example.com"))));
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        assert!(matches!(
            block_on(m.service().email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Recovery,
                VerifySecret::Link("t"),
                None
            )),
            Err(IdentityError::InvalidCode)
        ));
    }

    #[test]
    fn verification_types_read_supabase_names() {
        assert_eq!(VerifyKind::parse("magiclink"), Some(VerifyKind::MagicLink));
        assert_eq!(VerifyKind::parse("email"), Some(VerifyKind::Email));
        assert_eq!(VerifyKind::parse("invite"), None);
    }

    fn link_token(mail: &crate::mail::OutgoingEmail) -> String {
        let link = mail.link.clone().unwrap();
        link.split("token=")
            .nth(1)
            .unwrap()
            .split('&')
            .next()
            .unwrap()
            .to_owned()
    }

    fn typed_code(mail: &crate::mail::OutgoingEmail) -> String {
        mail.text.split("enter this code: ").nth(1).unwrap()[..6].to_owned()
    }

    #[test]
    fn a_link_works_once_and_then_neither_it_nor_the_code_from_the_same_email_works() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_sessions();
        let store = std::sync::Arc::new(InMemoryCodes::default());
        let service = m.service_with_codes(config(), store.clone());
        block_on(service.email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
        let mail = store.outbox.lock().unwrap()[0].clone();
        let (token, code) = (link_token(&mail), typed_code(&mail));
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::MagicLink,
                VerifySecret::Link(&token),
                None
            ))
            .is_ok()
        );
        let again = block_on(service.email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::MagicLink,
            VerifySecret::Link(&token),
            None,
        ));
        assert!(matches!(again, Err(IdentityError::InvalidCode)));
        let sibling = VerifySecret::Code {
            email: "dev@example.com",
            code: &code,
        };
        assert!(matches!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Email,
                sibling,
                None
            )),
            Err(IdentityError::InvalidCode)
        ));
    }

    #[test]
    fn a_typed_code_works_once_for_its_own_address_only() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_sessions();
        let store = std::sync::Arc::new(InMemoryCodes::default());
        let service = m.service_with_codes(config(), store.clone());
        block_on(service.email.request_recovery(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            None,
        ))
        .unwrap();
        let code = typed_code(&store.outbox.lock().unwrap()[0]);
        let elsewhere = VerifySecret::Code {
            email: "other@example.com",
            code: &code,
        };
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Recovery,
                elsewhere,
                None
            ))
            .is_err()
        );
        let mine = VerifySecret::Code {
            email: "dev@example.com",
            code: &code,
        };
        let session = block_on(service.email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::Recovery,
            mine,
            None,
        ))
        .unwrap();
        assert_eq!(session.user.account.email.as_str(), "dev@example.com");
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Recovery,
                mine,
                None
            ))
            .is_err()
        );
    }

    #[test]
    fn a_code_fifteen_minutes_old_has_expired() {
        let store = std::sync::Arc::new(InMemoryCodes::default());
        let issued = noon() - chrono::Duration::minutes(15);
        store.codes.lock().unwrap().push(OneTimeCode::issue(
            OtpPurpose::MagicLink,
            email("dev@example.com"),
            digest_secret("old-link"),
            issued,
        ));
        store.codes.lock().unwrap().push(OneTimeCode::issue(
            OtpPurpose::MagicLink,
            email("dev@example.com"),
            digest_secret("fresh-link"),
            issued + chrono::Duration::seconds(1),
        ));
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_sessions();
        let service = m.service_with_codes(config(), store);
        let stale = block_on(service.email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::MagicLink,
            VerifySecret::Link("old-link"),
            None,
        ));
        assert!(matches!(stale, Err(IdentityError::InvalidCode)));
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::MagicLink,
                VerifySecret::Link("fresh-link"),
                None
            ))
            .is_ok()
        );
    }

    #[test]
    fn a_recovery_link_is_not_a_magic_link() {
        let store = std::sync::Arc::new(InMemoryCodes::default());
        store.codes.lock().unwrap().push(OneTimeCode::issue(
            OtpPurpose::Recovery,
            email("dev@example.com"),
            digest_secret("recovery-link"),
            noon(),
        ));
        let service = Mocks::new().service_with_codes(config(), store);
        let wrong_kind = block_on(service.email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::MagicLink,
            VerifySecret::Link("recovery-link"),
            None,
        ));
        assert!(matches!(wrong_kind, Err(IdentityError::InvalidCode)));
    }

    #[test]
    fn a_wrong_typed_code_is_counted_against_its_address_and_a_wrong_link_against_none() {
        let mut m = Mocks::new();
        m.codes.expect_consume().returning(|_, _, _| Ok(None));
        m.codes
            .expect_record_failed_code()
            .withf(|address, purposes, now| {
                *address == email("dev@example.com")
                    && purposes == [OtpPurpose::MagicLink, OtpPurpose::Signup]
                    && *now == noon()
            })
            .times(1)
            .returning(|_, _, _| Ok(false));
        let service = m.service();
        let typed = VerifySecret::Code {
            email: " Dev@Example.com",
            code: "000000",
        };
        assert!(matches!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Email,
                typed,
                None
            )),
            Err(IdentityError::InvalidCode)
        ));
        // The mock refuses a second failure: a link names no address.
        assert!(matches!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::MagicLink,
                VerifySecret::Link("wrong"),
                None
            )),
            Err(IdentityError::InvalidCode)
        ));
    }

    fn wrong_code(service: &IdentityServices, right: &str) -> Result<Session, IdentityError> {
        let wrong = format!("{:06}", (right.parse::<u32>().unwrap() + 1) % 1_000_000);
        block_on(service.email.verify(
            crate::identity::test_support::CLIENT,
            VerifyKind::Email,
            VerifySecret::Code {
                email: "dev@example.com",
                code: &wrong,
            },
            None,
        ))
    }

    #[test]
    fn five_wrong_codes_use_up_the_typed_codes_of_the_purposes_tried_but_never_a_link() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_sessions();
        let store = std::sync::Arc::new(InMemoryCodes::default());
        let service = m.service_with_codes(config(), store.clone());
        block_on(service.email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
        block_on(service.email.request_recovery(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            None,
        ))
        .unwrap();
        let (magic, recovery) = {
            let outbox = store.outbox.lock().unwrap();
            (outbox[0].clone(), outbox[1].clone())
        };
        let code = typed_code(&magic);
        for _ in 0..5 {
            assert!(matches!(
                wrong_code(&service, &code),
                Err(IdentityError::InvalidCode)
            ));
        }
        let right = VerifySecret::Code {
            email: "dev@example.com",
            code: &code,
        };
        assert!(matches!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Email,
                right,
                None
            )),
            Err(IdentityError::InvalidCode)
        ));
        // Nobody can kill the owner's e-mailed link by typing wrong codes: it still signs in.
        let token = link_token(&magic);
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::MagicLink,
                VerifySecret::Link(&token),
                None
            ))
            .is_ok()
        );
        // And the typed code of another purpose (recovery) was not tried, so it stays.
        let recovery_code = VerifySecret::Code {
            email: "dev@example.com",
            code: &typed_code(&recovery),
        };
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Recovery,
                recovery_code,
                None
            ))
            .is_ok()
        );
    }

    #[test]
    fn a_right_code_clears_the_count_of_wrong_ones() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_sessions();
        let store = std::sync::Arc::new(InMemoryCodes::default());
        let service = m.service_with_codes(config(), store.clone());
        block_on(service.email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
        let code = typed_code(&store.outbox.lock().unwrap()[0]);
        for _ in 0..4 {
            assert!(wrong_code(&service, &code).is_err());
        }
        let right = VerifySecret::Code {
            email: "dev@example.com",
            code: &code,
        };
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Email,
                right,
                None
            ))
            .is_ok()
        );
        // Four more wrong ones after the success do not reach five.
        block_on(service.email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
        let code = typed_code(&store.outbox.lock().unwrap()[1]);
        for _ in 0..4 {
            assert!(wrong_code(&service, &code).is_err());
        }
        let right = VerifySecret::Code {
            email: "dev@example.com",
            code: &code,
        };
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Email,
                right,
                None
            ))
            .is_ok()
        );
    }

    #[test]
    fn a_new_request_retires_the_earlier_codes_of_the_same_purpose_only() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.allow_sessions();
        let store = std::sync::Arc::new(InMemoryCodes::default());
        let service = m.service_with_codes(config(), store.clone());
        block_on(service.email.request_recovery(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            None,
        ))
        .unwrap();
        block_on(service.email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
        block_on(service.email.request_magic_link(
            crate::identity::test_support::CLIENT,
            "dev@example.com",
            false,
            None,
        ))
        .unwrap();
        let outbox = store.outbox.lock().unwrap().clone();
        let first = link_token(&outbox[1]);
        assert!(matches!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::MagicLink,
                VerifySecret::Link(&first),
                None
            )),
            Err(IdentityError::InvalidCode)
        ));
        let recovery = link_token(&outbox[0]);
        assert!(
            block_on(service.email.verify(
                crate::identity::test_support::CLIENT,
                VerifyKind::Recovery,
                VerifySecret::Link(&recovery),
                None
            ))
            .is_ok()
        );
    }
}
