//! Sign-up (`POST /auth/v1/signup`).
//!
//! With confirmation required (a mailer is configured), the answer is the same whether or not the address
//! already has an account: "confirmation sent", after the same work (a password hash). For an unconfirmed
//! existing account the stored password is *not* replaced: the new password travels with the new codes and
//! takes effect only when one of them is verified, so a stranger who signs up with someone else's address
//! cannot set the password that the mailbox owner then confirms. For a confirmed one nothing is sent.
//!
//! Without confirmation (no mailer), accounts are confirmed and signed in at once, so a taken address
//! cannot be hidden: it answers "User already registered" (sign-up is rate-limited per IP).

use serde_json::Value;

use super::errors::{FieldErrors, IdentityError};
use super::models::{Account, AuthMethod, OtpPurpose, display_name_of, merge_profile};
use super::password::check_password;
use super::service::{IdentityService, Session};
use crate::common::email::INVALID_EMAIL;
use crate::common::{EmailAddress, RepoError, UserId};

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
    /// either way. `user_id` is the new account's id, or a random one.
    ConfirmationSent { user_id: UserId, email: EmailAddress },
}

impl IdentityService {
    /// Creates an account after checking the e-mail and the password policy.
    ///
    /// # Errors
    /// [`IdentityError::SignupsDisabled`]; [`IdentityError::Validation`] with `email`, `password` and/or
    /// `data` messages; [`IdentityError::UserAlreadyExists`] (only without confirmation); or a port failure.
    pub async fn sign_up(&self, request: SignUpRequest<'_>) -> Result<SignUpOutcome, IdentityError> {
        if !self.config.signups_enabled {
            return Err(IdentityError::SignupsDisabled);
        }
        let mut fields = FieldErrors::default();
        let email = EmailAddress::parse(request.email).ok();
        if email.is_none() {
            fields.add("email", INVALID_EMAIL);
        }
        if let Err(error) = check_password(request.password, email.as_ref()) {
            fields.add("password", error.to_string());
        }
        let empty = Value::Object(serde_json::Map::new());
        let profile = match merge_profile(&empty, request.data.unwrap_or(&empty)) {
            Ok(profile) => profile,
            Err(error) => {
                fields.add("data", error.to_string());
                empty
            }
        };
        let Some(email) = email.filter(|_| fields.is_empty()) else {
            return Err(IdentityError::Validation(fields));
        };

        if let Some(existing) = self.accounts.find_by_email(&email).await? {
            return self.sign_up_existing(existing, request).await;
        }
        let now = self.clock.now();
        let mut account = Account::new(email, now);
        account.password_hash = Some(self.hasher.hash(request.password).await?);
        account.display_name = display_name_of(&profile);
        account.profile = profile;
        if !self.config.require_email_confirmation {
            account.email_confirmed_at = Some(now);
        }
        match self.accounts.create(&account).await {
            Ok(()) => {}
            Err(RepoError::Duplicate(_)) => {
                // Lost a race with another sign-up of the same address: answer as for an existing one.
                if let Some(existing) = self.accounts.find_by_email(&account.email).await? {
                    return self.sign_up_existing(existing, request).await;
                }
                return Err(IdentityError::UserAlreadyExists);
            }
            Err(other) => return Err(other.into()),
        }
        if self.config.require_email_confirmation {
            self.send_codes(OtpPurpose::Signup, &account.email, request.redirect_to, None)
                .await?;
            return Ok(SignUpOutcome::ConfirmationSent {
                user_id: account.id,
                email: account.email,
            });
        }
        let session = self.start_session(account, AuthMethod::Password).await?;
        Ok(SignUpOutcome::SignedIn(Box::new(session)))
    }

    async fn sign_up_existing(
        &self,
        existing: Account,
        request: SignUpRequest<'_>,
    ) -> Result<SignUpOutcome, IdentityError> {
        if !self.config.require_email_confirmation {
            return Err(IdentityError::UserAlreadyExists);
        }
        // Hash in every branch, so that the answer takes as long whether or not the address is confirmed.
        let hash = self.hasher.hash(request.password).await?;
        if existing.is_confirmed() {
            return Ok(SignUpOutcome::ConfirmationSent {
                user_id: UserId::new(),
                email: existing.email,
            });
        }
        self.send_codes(
            OtpPurpose::Signup,
            &existing.email,
            request.redirect_to,
            Some(hash),
        )
        .await?;
        Ok(SignUpOutcome::ConfirmationSent {
            user_id: existing.id,
            email: existing.email,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{Mocks, account, config};
    use super::*;
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

    fn confirming() -> super::super::service::IdentityConfig {
        super::super::service::IdentityConfig {
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
        let outcome = block_on(m.service().sign_up(SignUpRequest {
            data: Some(&data),
            ..request(" New@Example.com ", GOOD)
        }))
        .unwrap();
        let SignUpOutcome::SignedIn(session) = outcome else {
            panic!("expected a session")
        };
        assert_eq!(session.user.account.profile, json!({"full_name": "Ada"}));
    }

    #[test]
    fn with_a_mailer_sign_up_sends_a_single_use_confirmation_link_and_code() {
        let mut m = Mocks::new();
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.hasher.expect_hash().returning(|_| Ok("argon".into()));
        m.accounts
            .expect_create()
            .withf(|a| a.email_confirmed_at.is_none())
            .returning(|_| Ok(()));
        m.codes
            .expect_insert_with_email()
            .withf(|codes, mail| {
                codes.len() == 2
                    && codes
                        .iter()
                        .all(|c| c.purpose == OtpPurpose::Signup && c.used_at.is_none())
                    && codes[0].code_hash != codes[1].code_hash
                    && mail.kind == EmailKind::ConfirmSignup
                    && mail.to.as_str() == "new@example.com"
                    && mail.link.as_deref().is_some_and(|l| l.contains("type=signup"))
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let outcome = block_on(
            m.service_with(confirming())
                .sign_up(request("new@example.com", GOOD)),
        )
        .unwrap();
        assert!(
            matches!(outcome, SignUpOutcome::ConfirmationSent { email, .. } if email.as_str() == "new@example.com")
        );
    }

    #[test]
    fn with_a_mailer_a_taken_confirmed_address_gets_the_same_answer_and_no_email() {
        let mut m = Mocks::new();
        let existing = account("taken@example.com", true);
        let existing_id = existing.id;
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(existing.clone())));
        // The same work as for a new address (a password hash), so timing does not tell them apart.
        m.hasher.expect_hash().times(1).returning(|_| Ok("unused".into()));
        m.accounts.expect_set_password().never();
        m.codes.expect_insert_with_email().never();
        let outcome = block_on(
            m.service_with(confirming())
                .sign_up(request("taken@example.com", GOOD)),
        )
        .unwrap();
        let SignUpOutcome::ConfirmationSent { user_id, email } = outcome else {
            panic!("expected uniform answer")
        };
        assert_ne!(user_id, existing_id);
        assert_eq!(email.as_str(), "taken@example.com");
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
                    && codes
                        .iter()
                        .all(|c| c.pending_password_hash.as_deref() == Some("new-hash"))
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let outcome = block_on(
            m.service_with(confirming())
                .sign_up(request("pending@example.com", GOOD)),
        )
        .unwrap();
        assert!(matches!(outcome, SignUpOutcome::ConfirmationSent { user_id, .. } if user_id == id));
    }

    #[test]
    fn without_a_mailer_a_taken_address_is_already_registered() {
        let mut m = Mocks::new();
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("taken@example.com", true))));
        let error = block_on(m.service().sign_up(request("taken@example.com", GOOD))).unwrap_err();
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
        let error = block_on(m.service().sign_up(request("race@example.com", GOOD))).unwrap_err();
        assert!(matches!(error, IdentityError::UserAlreadyExists));
    }

    #[test]
    fn sign_up_reports_the_email_and_password_problems_together() {
        let error = block_on(Mocks::new().service().sign_up(request("nope", "short"))).unwrap_err();
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
        let common = block_on(service.sign_up(request("a@example.com", "password1234"))).unwrap_err();
        assert_eq!(
            common.fields().unwrap().get("password"),
            Some("This password is too common. Choose a less common one.")
        );
        assert_eq!(common.error_code(), "weak_password");
        let own = block_on(service.sign_up(request("adalovelace1@example.com", "AdaLovelace1"))).unwrap_err();
        assert!(own.fields().unwrap().get("password").is_some());
    }

    #[test]
    fn sign_up_refuses_profile_data_that_is_not_an_object() {
        let data = json!("text");
        let error = block_on(Mocks::new().service().sign_up(SignUpRequest {
            data: Some(&data),
            ..request("a@example.com", GOOD)
        }))
        .unwrap_err();
        assert_eq!(
            error.fields().unwrap().get("data"),
            Some("User data must be a JSON object")
        );
    }

    #[test]
    fn sign_up_is_refused_when_turned_off() {
        let service = Mocks::new().service_with(super::super::service::IdentityConfig {
            signups_enabled: false,
            ..config()
        });
        assert!(matches!(
            block_on(service.sign_up(request("a@example.com", GOOD))),
            Err(IdentityError::SignupsDisabled)
        ));
    }
}
