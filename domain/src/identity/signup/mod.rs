//! Sign-up (`POST /auth/v1/signup`).
//!
//! With confirmation required (a mailer is configured), the answer is the same whether or not the address
//! already has an account: "confirmation sent", after the same work (a password hash), with an id that is
//! the same at every sign-up of the address (the account's own while it is unconfirmed, a keyed digest of
//! the address once it is confirmed) and a fresh browser value. An unconfirmed account holds no password:
//! the chosen one travels with the codes of its sign-up, together with the digest of the browser value, and
//! is installed only when one of those codes comes back from that browser (see [`crate::identity::codes`]). So a
//! stranger who signs up with someone else's address never sets the password the mailbox owner confirms.
//! For a confirmed address nothing is sent.
//!
//! Without confirmation (no mailer), accounts are confirmed and signed in at once, so a taken address
//! cannot be hidden: it answers "User already registered" (sign-up is rate-limited per IP).

pub mod proof;

use serde_json::Value;

use crate::common::email::INVALID_EMAIL;
use crate::common::secrets::digest_secret;
use crate::common::{EmailAddress, RepoError, UserId};
use crate::identity::account::password::{PasswordOwner, check_password};
use crate::identity::codes::{EmailSignIn, PendingSignUp};
use crate::identity::errors::{FieldErrors, IdentityError};
use crate::identity::models::{
    Account, AuthMethod, OPAQUE_TOKEN_BYTES, OtpPurpose, display_name_of, merge_profile,
};
use crate::identity::sessions::Session;

/// What the sign-up form sends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignUpRequest<'a> {
    pub email: &'a str,
    pub password: &'a str,
    /// Supabase's `options.data`: the initial profile (a JSON object).
    pub data: Option<&'a Value>,
    /// Where the confirmation link leads afterwards.
    pub redirect_to: Option<&'a str>,
}

/// How a sign-up ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SignUpOutcome {
    /// No confirmation needed: the account exists and is signed in.
    SignedIn(Box<Session>),
    /// A confirmation link was sent (or, for an already confirmed address, silently not): the same answer
    /// either way. `user_id` is the unconfirmed account's id, or for a confirmed address a stable decoy.
    /// `browser` is the random value to leave in the browser that signed up (a cookie): a code of this
    /// sign-up installs its password only when verified with it.
    ConfirmationSent {
        user_id: UserId,
        email: EmailAddress,
        browser: String,
    },
}

impl EmailSignIn {
    /// Creates an account after checking the e-mail and the password policy.
    ///
    /// # Errors
    /// [`IdentityError::SignupsDisabled`]; [`IdentityError::Validation`] with `email`, `password` and/or
    /// `data` messages; [`IdentityError::UserAlreadyExists`] (only without confirmation);
    /// [`IdentityError::RateLimited`] past the volume limits of `client` or the address; or a port failure.
    pub async fn sign_up(
        &self,
        client: &str,
        request: SignUpRequest<'_>,
    ) -> Result<SignUpOutcome, IdentityError> {
        self.limits
            .admit(
                crate::identity::rate_limit::AuthAction::SignUp,
                client,
                Some(request.email),
            )
            .await?;
        if !self.issuer.config().signups_enabled {
            return Err(IdentityError::SignupsDisabled);
        }
        let mut fields = FieldErrors::default();
        let email = EmailAddress::parse(request.email).ok();
        if email.is_none() {
            fields.add("email", INVALID_EMAIL);
        }
        let empty = Value::Object(serde_json::Map::new());
        let profile = match merge_profile(&empty, request.data.unwrap_or(&empty)) {
            Ok(profile) => profile,
            Err(error) => {
                fields.add("data", error.to_string());
                empty
            }
        };
        let name = display_name_of(&profile);
        let owner = PasswordOwner {
            email: email.as_ref(),
            name: name.as_deref(),
        };
        if let Err(error) = check_password(request.password, owner) {
            fields.add("password", error.to_string());
        }
        let Some(email) = email.filter(|_| fields.is_empty()) else {
            return Err(IdentityError::Validation(fields));
        };

        if let Some(existing) = self.accounts.find_by_email(&email).await? {
            if !self.issuer.config().require_email_confirmation {
                return Err(IdentityError::UserAlreadyExists);
            }
            let hash = self.hasher.hash(request.password).await?;
            return self.sign_up_existing(existing, hash, request).await;
        }
        let now = self.issuer.now();
        let mut account = Account::new(email, now);
        let hash = self.hasher.hash(request.password).await?;
        account.display_name = display_name_of(&profile);
        account.profile = profile;
        // With confirmation, the password waits with the codes until the address is proven from this browser.
        if !self.issuer.config().require_email_confirmation {
            account.password_hash = Some(hash.clone());
            account.email_confirmed_at = Some(now);
        }
        match self.accounts.create(&account).await {
            Ok(()) => {}
            Err(RepoError::Duplicate(_)) => {
                // Lost a race with another sign-up of the same address: answer as for an existing one.
                if let Some(existing) = self.accounts.find_by_email(&account.email).await? {
                    return self.sign_up_existing(existing, hash, request).await;
                }
                return Err(IdentityError::UserAlreadyExists);
            }
            Err(other) => return Err(other.into()),
        }
        if self.issuer.config().require_email_confirmation {
            return self.awaiting_confirmation(account, hash, request).await;
        }
        let session = self.issuer.start_session(account, AuthMethod::Password).await?;
        Ok(SignUpOutcome::SignedIn(Box::new(session)))
    }

    /// A sign-up of an address that has an account. `hash` is the chosen password's: computed in every
    /// branch, so that the answer takes as long whether or not the address is taken or confirmed.
    async fn sign_up_existing(
        &self,
        existing: Account,
        hash: String,
        request: SignUpRequest<'_>,
    ) -> Result<SignUpOutcome, IdentityError> {
        if !self.issuer.config().require_email_confirmation {
            return Err(IdentityError::UserAlreadyExists);
        }
        if existing.is_confirmed() {
            return Ok(SignUpOutcome::ConfirmationSent {
                user_id: self.digest_key.decoy_user_id(&existing.email),
                email: existing.email,
                browser: self.secrets.token_hex(OPAQUE_TOKEN_BYTES),
            });
        }
        self.awaiting_confirmation(existing, hash, request).await
    }

    /// Sends the confirmation of an unconfirmed account, its codes carrying the chosen password and the
    /// digest of a fresh browser value.
    async fn awaiting_confirmation(
        &self,
        account: Account,
        hash: String,
        request: SignUpRequest<'_>,
    ) -> Result<SignUpOutcome, IdentityError> {
        let browser = self.secrets.token_hex(OPAQUE_TOKEN_BYTES);
        let pending = PendingSignUp {
            password_hash: hash,
            browser_hash: digest_secret(&browser),
        };
        self.send_codes(
            OtpPurpose::Signup,
            &account.email,
            request.redirect_to,
            Some(pending),
        )
        .await?;
        Ok(SignUpOutcome::ConfirmationSent {
            user_id: account.id,
            email: account.email,
            browser,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::test_support::{Mocks, account, config};
    use crate::mail::EmailKind;
    use crate::testing::{block_on, noon};
    use serde_json::json;

    const GOOD: &str = "violet-harbour-tram-42";

    fn request<'a>(address: &'a str, password: &'a str) -> SignUpRequest<'a> {
        SignUpRequest {
            email: address,
            password,
            data: None,
            redirect_to: None,
        }
    }

    fn confirming() -> crate::identity::sessions::IdentityConfig {
        crate::identity::sessions::IdentityConfig {
            require_email_confirmation: true,
            ..config()
        }
    }

    #[test]
    fn without_a_mailer_a_new_account_is_confirmed_and_signed_in_at_once() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.hasher
            .expect_hash()
            .withf(|p| p == GOOD)
            .returning(|_| Ok("argon".into()));
        m.accounts
            .expect_create()
            .withf(|a| {
                a.email.as_str() == "new@example.com"
                    && a.password_hash.as_deref() == Some("argon")
                    && a.email_confirmed_at == Some(noon())
                    && a.display_name.as_deref() == Some("Ada")
            })
            .times(1)
            .returning(|_| Ok(()));
        m.allow_sessions();
        let data = json!({"full_name": "Ada"});
        let outcome = block_on(m.service().email.sign_up(
            crate::identity::test_support::CLIENT,
            SignUpRequest {
                data: Some(&data),
                ..request(" New@Example.com ", GOOD)
            },
        ))
        .unwrap();
        let SignUpOutcome::SignedIn(session) = outcome else {
            panic!("expected a session")
        };
        assert_eq!(session.user.account.profile, json!({"full_name": "Ada"}));
    }

    #[test]
    fn with_a_mailer_sign_up_sends_codes_carrying_the_password_and_leaves_no_password_on_the_account() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.hasher.expect_hash().returning(|_| Ok("argon".into()));
        // The account waits unconfirmed and without a password: whoever proves the address decides.
        m.accounts
            .expect_create()
            .withf(|a| a.email_confirmed_at.is_none() && a.password_hash.is_none())
            .times(1)
            .returning(|_| Ok(()));
        m.codes
            .expect_insert_with_email()
            .withf(|codes, mail| {
                codes.len() == 2
                    && codes.iter().all(|c| {
                        c.purpose == OtpPurpose::Signup
                            && c.used_at.is_none()
                            && c.pending_password_hash.as_deref() == Some("argon")
                            && c.browser_hash.as_deref() == Some(digest_secret(&"07".repeat(32)).as_str())
                    })
                    && codes[0].code_hash != codes[1].code_hash
                    && mail.kind == EmailKind::ConfirmSignup
                    && mail.to.as_str() == "new@example.com"
                    && mail.link.as_deref().is_some_and(|l| l.contains("type=signup"))
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let outcome = block_on(m.service_with(confirming()).email.sign_up(
            crate::identity::test_support::CLIENT,
            request("new@example.com", GOOD),
        ))
        .unwrap();
        let SignUpOutcome::ConfirmationSent { email, browser, .. } = outcome else {
            panic!("expected confirmation")
        };
        assert_eq!(email.as_str(), "new@example.com");
        assert_eq!(browser, "07".repeat(32));
    }

    fn sign_up_of(existing: Account) -> SignUpOutcome {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(existing.clone())));
        // The same work in every branch (a password hash), so timing does not tell them apart.
        m.hasher
            .expect_hash()
            .times(1)
            .returning(|_| Ok("new-hash".into()));
        // Nobody has proved the address: no stored password changes now.
        m.accounts.expect_set_password().never();
        m.codes.expect_insert_with_email().returning(|_, _| Ok(()));
        block_on(m.service_with(confirming()).email.sign_up(
            crate::identity::test_support::CLIENT,
            request("taken@example.com", GOOD),
        ))
        .unwrap()
    }

    #[test]
    fn with_a_mailer_a_taken_confirmed_address_gets_a_stable_decoy_id_and_no_email() {
        let mut m = Mocks::new();
        let existing = account("taken@example.com", true);
        let existing_id = existing.id;
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(existing.clone())));
        m.hasher.expect_hash().times(2).returning(|_| Ok("unused".into()));
        m.accounts.expect_set_password().never();
        m.codes.expect_insert_with_email().never();
        let service = m.service_with(confirming());
        let answer = || {
            block_on(service.email.sign_up(
                crate::identity::test_support::CLIENT,
                request("taken@example.com", GOOD),
            ))
            .unwrap()
        };
        let (first, second) = (answer(), answer());
        assert_eq!(first, second, "two sign-ups of a confirmed address answer alike");
        let SignUpOutcome::ConfirmationSent {
            user_id,
            email,
            browser,
        } = first
        else {
            panic!("expected uniform answer")
        };
        assert_ne!(user_id, existing_id);
        assert_eq!(
            user_id,
            crate::identity::test_support::digest_key().decoy_user_id(&email)
        );
        assert_eq!(email.as_str(), "taken@example.com");
        assert_eq!(browser.len(), 64);
    }

    #[test]
    fn a_confirmed_and_an_unconfirmed_address_answer_in_the_same_shape() {
        let confirmed = sign_up_of(account("taken@example.com", true));
        let unconfirmed = sign_up_of(account("taken@example.com", false));
        for outcome in [confirmed, unconfirmed] {
            let SignUpOutcome::ConfirmationSent {
                user_id,
                email,
                browser,
            } = outcome
            else {
                panic!("expected confirmation")
            };
            assert_eq!(user_id.as_uuid().get_version_num(), 4);
            assert_eq!(email.as_str(), "taken@example.com");
            assert_eq!(browser.len(), 64);
        }
    }

    #[test]
    fn signing_up_again_for_an_unconfirmed_address_keeps_the_password_and_sends_it_with_the_new_codes() {
        let mut m = Mocks::new();
        let existing = account("pending@example.com", false);
        let id = existing.id;
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(existing.clone())));
        m.hasher.expect_hash().returning(|_| Ok("new-hash".into()));
        // Nobody has proved the address yet: the stored password must not change now.
        m.accounts.expect_set_password().never();
        m.codes
            .expect_insert_with_email()
            .withf(|codes, _| {
                codes.len() == 2
                    && codes.iter().all(|c| {
                        c.pending_password_hash.as_deref() == Some("new-hash") && c.browser_hash.is_some()
                    })
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let outcome = block_on(m.service_with(confirming()).email.sign_up(
            crate::identity::test_support::CLIENT,
            request("pending@example.com", GOOD),
        ))
        .unwrap();
        assert!(matches!(outcome, SignUpOutcome::ConfirmationSent { user_id, .. } if user_id == id));
    }

    #[test]
    fn without_a_mailer_a_taken_address_is_already_registered() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("taken@example.com", true))));
        let error = block_on(m.service().email.sign_up(
            crate::identity::test_support::CLIENT,
            request("taken@example.com", GOOD),
        ))
        .unwrap_err();
        assert_eq!(error.to_string(), "User already registered");
        assert_eq!(error.error_code(), "user_already_exists");
    }

    #[test]
    fn losing_the_create_race_answers_as_for_an_existing_address() {
        let mut m = Mocks::new();
        let mut calls = 0;
        m.accounts.expect_find_by_email().returning(move |_| {
            calls += 1;
            Ok((calls > 1).then(|| account("race@example.com", true)))
        });
        m.hasher.expect_hash().returning(|_| Ok("argon".into()));
        m.accounts
            .expect_create()
            .returning(|_| Err(RepoError::Duplicate("email")));
        let error = block_on(m.service().email.sign_up(
            crate::identity::test_support::CLIENT,
            request("race@example.com", GOOD),
        ))
        .unwrap_err();
        assert!(matches!(error, IdentityError::UserAlreadyExists));
    }

    #[test]
    fn sign_up_reports_the_email_and_password_problems_together() {
        let error = block_on(
            Mocks::new()
                .service()
                .email
                .sign_up(crate::identity::test_support::CLIENT, request("nope", "short")),
        )
        .unwrap_err();
        let fields = error.fields().unwrap();
        assert_eq!(fields.get("email"), Some("Please enter a valid email address"));
        assert_eq!(
            fields.get("password"),
            Some("Password must be at least 12 characters")
        );
    }

    #[test]
    fn sign_up_refuses_a_common_password_or_the_address_itself() {
        let service = Mocks::new().service();
        let common = block_on(service.email.sign_up(
            crate::identity::test_support::CLIENT,
            request("a@example.com", "password1234"),
        ))
        .unwrap_err();
        assert_eq!(
            common.fields().unwrap().get("password"),
            Some("This password is too common. Choose a less common one.")
        );
        assert_eq!(common.error_code(), "weak_password");
        let own = block_on(service.email.sign_up(
            crate::identity::test_support::CLIENT,
            request("adalovelace1@example.com", "AdaLovelace1"),
        ))
        .unwrap_err();
        assert!(own.fields().unwrap().get("password").is_some());
    }

    #[test]
    fn sign_up_refuses_profile_data_that_is_not_an_object() {
        let data = json!("text");
        let error = block_on(Mocks::new().service().email.sign_up(
            crate::identity::test_support::CLIENT,
            SignUpRequest {
                data: Some(&data),
                ..request("a@example.com", GOOD)
            },
        ))
        .unwrap_err();
        assert_eq!(
            error.fields().unwrap().get("data"),
            Some("User data must be a JSON object")
        );
    }

    #[test]
    fn sign_up_is_refused_when_turned_off() {
        let service = Mocks::new().service_with(crate::identity::sessions::IdentityConfig {
            signups_enabled: false,
            ..config()
        });
        assert!(matches!(
            block_on(service.email.sign_up(
                crate::identity::test_support::CLIENT,
                request("a@example.com", GOOD)
            )),
            Err(IdentityError::SignupsDisabled)
        ));
    }
}
