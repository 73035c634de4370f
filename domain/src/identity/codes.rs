//! E-mail links and codes: magic link / one-time code (`POST /otp`), password recovery (`POST /recover`) and
//! their verification (`POST|GET /verify`).
//!
//! Requests answer the same whether or not the address has an account. Each request sends one e-mail with a
//! link token (32 random bytes) and a six-digit code; both are stored only as digests, valid 15 minutes, and
//! using either one uses up both (the repository's `consume` marks every code of that e-mail and purpose).
//!
//! Verifying a code proves the mailbox, so it confirms the e-mail. When a magic link or recovery confirms an
//! account for the first time, any password set before is removed: whoever set it had not proved owning
//! the address (a pre-registered account cannot be taken over).

use super::errors::{FieldErrors, IdentityError};
use super::models::{Account, OtpPurpose};
use super::service::{IdentityService, Session, typed_code_digest};
use crate::common::email::INVALID_EMAIL;
use crate::common::secrets::digest_secret;
use crate::common::{EmailAddress, RepoError};

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

impl IdentityService {
    /// `POST /otp`: e-mails a sign-in link and code. For an unknown address, creates an account without a
    /// password when `create_user` is set and sign-ups are on, else sends nothing. Same answer either way.
    ///
    /// # Errors
    /// [`IdentityError::Validation`] (`email`) for an address that does not look like one; a port failure.
    pub async fn request_magic_link(
        &self,
        email: &str,
        create_user: bool,
        redirect_to: Option<&str>,
    ) -> Result<(), IdentityError> {
        let email = parse_email(email)?;
        if self.accounts.find_by_email(&email).await?.is_none() {
            if !(create_user && self.config.signups_enabled) {
                return Ok(());
            }
            match self
                .accounts
                .create(&Account::new(email.clone(), self.clock.now()))
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
    /// [`IdentityError::Validation`] (`email`) for an address that does not look like one; a port failure.
    pub async fn request_recovery(
        &self,
        email: &str,
        redirect_to: Option<&str>,
    ) -> Result<(), IdentityError> {
        let email = parse_email(email)?;
        if self.accounts.find_by_email(&email).await?.is_some() {
            self.send_codes(OtpPurpose::Recovery, &email, redirect_to, None)
                .await?;
        }
        Ok(())
    }

    /// `POST|GET /verify`: uses up a link or code and starts a session (a recovery session lets the user set
    /// a new password with `update_user`).
    ///
    /// # Errors
    /// [`IdentityError::InvalidCode`] when the code is unknown, of another kind, used or expired (or its
    /// account is gone); a port failure.
    pub async fn verify(&self, kind: VerifyKind, secret: VerifySecret<'_>) -> Result<Session, IdentityError> {
        let now = self.clock.now();
        let (digest, typed) = match secret {
            VerifySecret::Link(token) => (digest_secret(token.trim()), false),
            VerifySecret::Code { email, code } => {
                let email = EmailAddress::parse(email).map_err(|_| IdentityError::InvalidCode)?;
                (typed_code_digest(&email, code), true)
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
            return Err(IdentityError::InvalidCode);
        };
        let Some(mut account) = self.accounts.find_by_email(&code.email).await? else {
            return Err(IdentityError::InvalidCode);
        };
        if !account.is_confirmed() {
            self.accounts.confirm_email(account.id, now).await?;
            account.email_confirmed_at = Some(now);
            if code.purpose != OtpPurpose::Signup && account.password_hash.is_some() {
                // Whoever set a password before the mailbox owner proved the address loses it.
                self.accounts.set_password(account.id, None, now).await?;
                account.password_hash = None;
            } else if let Some(pending) = code.pending_password_hash.clone() {
                // A repeated sign-up: its password takes effect only through its own code.
                self.accounts
                    .set_password(account.id, Some(pending.clone()), now)
                    .await?;
                account.password_hash = Some(pending);
            }
        }
        self.start_session(account, code.purpose.auth_method(typed)).await
    }
}

fn parse_email(input: &str) -> Result<EmailAddress, IdentityError> {
    EmailAddress::parse(input)
        .map_err(|_| IdentityError::Validation(FieldErrors::single("email", INVALID_EMAIL)))
}

#[cfg(test)]
mod tests {
    use super::super::models::OneTimeCode;
    use super::super::test_support::{InMemoryCodes, Mocks, account, config, email};
    use super::*;
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
        block_on(m.service().request_magic_link("dev@example.com", false, None)).unwrap();
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
        block_on(m.service().request_magic_link("dev@example.com", false, None)).unwrap();
    }

    #[test]
    fn a_magic_link_request_for_an_unknown_address_answers_the_same_and_sends_nothing() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        assert!(block_on(m.service().request_magic_link("ghost@example.com", false, None)).is_ok());
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
        block_on(m.service().request_magic_link("new@example.com", true, None)).unwrap();
    }

    #[test]
    fn no_account_is_created_by_a_magic_link_when_sign_ups_are_off() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        let service = m.service_with(super::super::service::IdentityConfig {
            signups_enabled: false,
            ..config()
        });
        assert!(block_on(service.request_magic_link("new@example.com", true, None)).is_ok());
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
        let known = block_on(service.request_recovery("dev@example.com", None));
        let unknown = block_on(service.request_recovery("ghost@example.com", None));
        assert!(known.is_ok() && unknown.is_ok());
    }

    #[test]
    fn a_request_for_a_malformed_address_is_a_validation_error() {
        let error = block_on(Mocks::new().service().request_recovery("nope", None)).unwrap_err();
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
        let session = block_on(
            m.service()
                .verify(VerifyKind::MagicLink, VerifySecret::Link("link-token")),
        )
        .unwrap();
        assert_eq!(session.user.account.email.as_str(), "dev@example.com");
    }

    #[test]
    fn a_used_or_expired_code_is_refused() {
        let mut m = Mocks::new();
        m.codes.expect_consume().returning(|_, _, _| Ok(None));
        let error = block_on(
            m.service()
                .verify(VerifyKind::Recovery, VerifySecret::Link("again")),
        )
        .unwrap_err();
        assert!(matches!(error, IdentityError::InvalidCode));
        assert_eq!(error.to_string(), "Token has expired or is invalid");
        assert_eq!(error.error_code(), "otp_expired");
    }

    #[test]
    fn a_typed_code_is_looked_up_with_its_email_and_the_email_type_tries_both_purposes() {
        let mut m = Mocks::new();
        let digest = typed_code_digest(&email("dev@example.com"), "123456");
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
        block_on(m.service().verify(VerifyKind::Email, secret)).unwrap();
    }

    #[test]
    fn confirming_a_sign_up_confirms_the_email_and_keeps_the_password() {
        let mut m = Mocks::new();
        m.codes
            .expect_consume()
            .returning(|_, _, _| Ok(Some(consumed(OtpPurpose::Signup, "dev@example.com"))));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", false))));
        m.accounts
            .expect_confirm_email()
            .with(mockall::predicate::always(), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        m.accounts.expect_set_password().never();
        m.allow_sessions();
        let session = block_on(m.service().verify(VerifyKind::Signup, VerifySecret::Link("t"))).unwrap();
        assert_eq!(session.user.account.email_confirmed_at, Some(noon()));
        assert!(session.user.account.password_hash.is_some());
    }

    #[test]
    fn confirming_a_repeated_sign_up_sets_the_password_that_came_with_its_own_code() {
        let mut m = Mocks::new();
        m.codes.expect_consume().returning(|_, _, _| {
            let mut code = consumed(OtpPurpose::Signup, "dev@example.com");
            code.pending_password_hash = Some("hash-of-the-second-sign-up".into());
            Ok(Some(code))
        });
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", false))));
        m.accounts
            .expect_confirm_email()
            .times(1)
            .returning(|_, _| Ok(()));
        m.accounts
            .expect_set_password()
            .withf(|_, hash, _| hash.as_deref() == Some("hash-of-the-second-sign-up"))
            .times(1)
            .returning(|_, _, _| Ok(()));
        m.allow_sessions();
        let session = block_on(m.service().verify(VerifyKind::Signup, VerifySecret::Link("t"))).unwrap();
        assert_eq!(
            session.user.account.password_hash.as_deref(),
            Some("hash-of-the-second-sign-up")
        );
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
        m.accounts
            .expect_confirm_email()
            .times(1)
            .returning(|_, _| Ok(()));
        m.accounts
            .expect_set_password()
            .withf(|_, hash, _| hash.is_none())
            .times(1)
            .returning(|_, _, _| Ok(()));
        m.allow_sessions();
        let session = block_on(m.service().verify(VerifyKind::MagicLink, VerifySecret::Link("t"))).unwrap();
        assert!(session.user.account.password_hash.is_none());
    }

    #[test]
    fn a_code_whose_account_is_gone_is_refused() {
        let mut m = Mocks::new();
        m.codes
            .expect_consume()
            .returning(|_, _, _| Ok(Some(consumed(OtpPurpose::Recovery, "gone@example.com"))));
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        assert!(matches!(
            block_on(m.service().verify(VerifyKind::Recovery, VerifySecret::Link("t"))),
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
        block_on(service.request_magic_link("dev@example.com", false, None)).unwrap();
        let mail = store.outbox.lock().unwrap()[0].clone();
        let (token, code) = (link_token(&mail), typed_code(&mail));
        assert!(block_on(service.verify(VerifyKind::MagicLink, VerifySecret::Link(&token))).is_ok());
        let again = block_on(service.verify(VerifyKind::MagicLink, VerifySecret::Link(&token)));
        assert!(matches!(again, Err(IdentityError::InvalidCode)));
        let sibling = VerifySecret::Code {
            email: "dev@example.com",
            code: &code,
        };
        assert!(matches!(
            block_on(service.verify(VerifyKind::Email, sibling)),
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
        block_on(service.request_recovery("dev@example.com", None)).unwrap();
        let code = typed_code(&store.outbox.lock().unwrap()[0]);
        let elsewhere = VerifySecret::Code {
            email: "other@example.com",
            code: &code,
        };
        assert!(block_on(service.verify(VerifyKind::Recovery, elsewhere)).is_err());
        let mine = VerifySecret::Code {
            email: "dev@example.com",
            code: &code,
        };
        let session = block_on(service.verify(VerifyKind::Recovery, mine)).unwrap();
        assert_eq!(session.user.account.email.as_str(), "dev@example.com");
        assert!(block_on(service.verify(VerifyKind::Recovery, mine)).is_err());
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
        let stale = block_on(service.verify(VerifyKind::MagicLink, VerifySecret::Link("old-link")));
        assert!(matches!(stale, Err(IdentityError::InvalidCode)));
        assert!(block_on(service.verify(VerifyKind::MagicLink, VerifySecret::Link("fresh-link"))).is_ok());
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
        let wrong_kind = block_on(service.verify(VerifyKind::MagicLink, VerifySecret::Link("recovery-link")));
        assert!(matches!(wrong_kind, Err(IdentityError::InvalidCode)));
    }
}
