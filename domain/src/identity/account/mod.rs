//! The signed-in user's own account: `GET /user` and `PUT /user` of the identity service.
//!
//! Changing the password needs only a valid session (as in Supabase Auth without "secure password change"):
//! a recovery session is the proof for a forgotten password. A new password ends every other session.

pub mod password;
pub mod profile;

use serde_json::Value;

use crate::common::EmailAddress;
use crate::common::email::INVALID_EMAIL;
use crate::identity::account::password::{PasswordOwner, check_password};
use crate::identity::assurance::Action;
use crate::identity::attempts::Guarded;
use crate::identity::errors::{FieldErrors, IdentityError};
use crate::identity::models::{Account, display_name_of, merge_profile};
use crate::identity::sessions::tokens::AccessTokenClaims;
use std::sync::Arc;

use crate::identity::ports::{
    AccountRepository, PasswordHasher, RefreshTokenRepository, SessionListRepository,
};
use crate::identity::sessions::{SessionIssuer, UserRecord};
use crate::mail::templates::SecurityChange;

/// The current password given again with `PUT /user`'s new one (needed unless the session signed in
/// recently): an answer to "prove it's you", so it comes with the attempt guard's leave.
#[derive(Debug)]
pub struct GivenPassword<'a> {
    pub guarded: Guarded,
    pub password: &'a str,
}

/// What `PUT /user` may change.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UserUpdate<'a> {
    /// Must be the current address: changing it is not offered.
    pub email: Option<&'a str>,
    pub password: Option<&'a str>,
    /// Merged into the profile (Supabase `data`).
    pub data: Option<&'a Value>,
}

pub use crate::identity::assurance::RECENT_SIGN_IN_MINUTES;

/// The signed-in user's own account: `GET /user`, `PUT /user` (password and profile) and the product's profile.
/// A password change that gives the current password is checked only inside the attempt guard.
pub struct AccountService {
    issuer: Arc<SessionIssuer>,
    accounts: Arc<dyn AccountRepository>,
    hasher: Arc<dyn PasswordHasher>,
    refresh_tokens: Arc<dyn RefreshTokenRepository>,
    session_list: Arc<dyn SessionListRepository>,
}

/// The ports of [`AccountService`] beside the issuer.
pub struct AccountPorts {
    pub accounts: Arc<dyn AccountRepository>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub refresh_tokens: Arc<dyn RefreshTokenRepository>,
    pub session_list: Arc<dyn SessionListRepository>,
}

impl AccountService {
    #[must_use]
    pub fn new(issuer: Arc<SessionIssuer>, ports: AccountPorts) -> Self {
        Self {
            issuer,
            accounts: ports.accounts,
            hasher: ports.hasher,
            refresh_tokens: ports.refresh_tokens,
            session_list: ports.session_list,
        }
    }
}

impl AccountService {
    /// `GET /user`.
    ///
    /// # Errors
    /// [`IdentityError::UserNotFound`] when the account is gone; a port failure.
    pub async fn get_user(&self, claims: &AccessTokenClaims) -> Result<UserRecord, IdentityError> {
        let account = self.issuer.account(claims.sub).await?;
        self.issuer.user_record(account).await
    }

    /// `PUT /user`: sets a new password (password policy; other sessions end) and/or merges profile data.
    ///
    /// # Errors
    /// [`IdentityError::Validation`] (`email`, `password`, `data`); [`IdentityError::EmailChangeUnsupported`]
    /// for another address; [`IdentityError::UserNotFound`]; a port failure.
    pub async fn update_user(
        &self,
        claims: &AccessTokenClaims,
        update: UserUpdate<'_>,
        current: Option<GivenPassword<'_>>,
    ) -> Result<UserRecord, IdentityError> {
        let mut account = self.issuer.account(claims.sub).await?;
        let mut fields = FieldErrors::default();
        if let Some(requested) = update.email {
            match EmailAddress::parse(requested) {
                Ok(address) if address == account.email => {}
                Ok(_) => return Err(IdentityError::EmailChangeUnsupported),
                Err(_) => fields.add("email", INVALID_EMAIL),
            }
        }
        if let Some(password) = update.password
            && let Err(error) = check_password(
                password,
                PasswordOwner {
                    email: Some(&account.email),
                    name: account.display_name.as_deref(),
                },
            )
        {
            fields.add("password", error.to_string());
        }
        let profile = match update.data.map(|data| merge_profile(&account.profile, data)) {
            Some(Ok(profile)) => Some(profile),
            Some(Err(error)) => {
                fields.add("data", error.to_string());
                None
            }
            None => None,
        };
        if !fields.is_empty() {
            return Err(IdentityError::Validation(fields));
        }
        let now = self.issuer.now();
        if update.email.is_some() {
            self.issuer
                .require(
                    claims,
                    Action::ChangeEmail,
                    false,
                    IdentityError::Aal2RequiredToUpdateUser,
                )
                .await?;
        }
        if update.data.is_some() {
            self.issuer
                .require(
                    claims,
                    Action::EditAccount,
                    false,
                    IdentityError::Aal2RequiredToUpdateUser,
                )
                .await?;
        }
        if let Some(password) = update.password {
            // The level first: a session that may not change the password learns nothing of the one
            // it gives.
            self.issuer
                .require(
                    claims,
                    Action::ChangePassword,
                    true,
                    IdentityError::Aal2RequiredToUpdateUser,
                )
                .await?;
            let reconfirmed = self
                .current_password_given(&account, current.map(|given| given.password))
                .await?;
            self.issuer
                .require(
                    claims,
                    Action::ChangePassword,
                    reconfirmed,
                    IdentityError::Aal2RequiredToUpdateUser,
                )
                .await?;
            let hash = self.hasher.hash(password).await?;
            // Every other session ends, and with it the access tokens it made; a reset's notice names
            // the tokens that still work (made by sessions that had ended before), to be revoked there.
            self.refresh_tokens
                .revoke_all_for_user(account.id, Some(claims.session_id), now, None)
                .await?;
            let tokens_left = if claims.amr.iter().any(|entry| entry.method == "recovery") {
                Some(self.session_list.active_access_tokens(account.id, now).await?)
            } else {
                None
            };
            let change = match &tokens_left {
                Some(tokens_left) => SecurityChange::PasswordReset { tokens_left },
                None => SecurityChange::PasswordChanged,
            };
            let notice = self.issuer.security_notice(&account.email, change, now);
            self.accounts
                .set_password(account.id, Some(hash.clone()), now, Some(notice))
                .await?;
            account.password_hash = Some(hash);
            account.updated_at = now;
        }
        if let Some(profile) = profile {
            let stored = self
                .accounts
                .update_profile(account.id, display_name_of(&profile), &profile, now)
                .await?;
            account = stored;
        }
        self.issuer.user_record(account).await
    }
}

impl AccountService {
    /// Whether the request gave the account's current password (a stolen access token alone must not be
    /// enough to take the account over: see [`Action::ChangePassword`]). A current password that is given
    /// is always checked, recent sign-in or not: a form that asks for it must not accept a wrong one.
    async fn current_password_given(
        &self,
        account: &Account,
        current_password: Option<&str>,
    ) -> Result<bool, IdentityError> {
        let Some(current) = current_password else {
            return Ok(false);
        };
        let Some(hash) = account.password_hash.as_deref() else {
            return Err(IdentityError::ReauthenticationNeeded);
        };
        if self.hasher.verify(current, hash).await? {
            Ok(true)
        } else {
            Err(IdentityError::InvalidCredentials)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::attempts::Guarded;
    use chrono::{DateTime, Utc};

    fn given(password: &str) -> GivenPassword<'_> {
        GivenPassword {
            guarded: Guarded::for_tests(),
            password,
        }
    }
    use crate::identity::sessions::tokens::TokenError;
    use crate::identity::test_support::{Mocks, access_claims, account, refresh_row};
    use crate::testing::{block_on, noon};
    use mockall::predicate::eq;
    use serde_json::json;

    #[test]
    fn a_valid_access_token_authenticates() {
        let mut m = Mocks::new();
        let claims = access_claims(noon());
        let expected = claims.clone();
        let mut head = refresh_row(noon());
        head.family_id = claims.session_id;
        head.user_id = claims.sub;
        m.signer
            .expect_verify_access()
            .with(eq("tok"), eq(noon()))
            .returning(move |_, _| Ok(claims.clone()));
        m.refresh_tokens
            .expect_current_of_family()
            .with(eq(expected.session_id))
            .returning(move |_| Ok(Some(head.clone())));
        assert_eq!(
            block_on(m.service().sessions.authenticate_access(" tok ")).unwrap(),
            expected
        );
    }

    #[test]
    fn the_access_token_of_a_signed_out_or_idle_session_is_refused() {
        let claims = access_claims(noon());
        let mut idle = refresh_row(noon() - chrono::Duration::days(8));
        idle.family_id = claims.session_id;
        idle.user_id = claims.sub;
        for head in [None, Some(idle)] {
            let mut m = Mocks::new();
            let presented = claims.clone();
            m.signer
                .expect_verify_access()
                .returning(move |_, _| Ok(presented.clone()));
            m.refresh_tokens
                .expect_current_of_family()
                .returning(move |_| Ok(head.clone()));
            let error = block_on(m.service().sessions.authenticate_access("tok")).unwrap_err();
            assert!(matches!(error, IdentityError::SessionNotFound));
            assert_eq!(error.error_code(), "session_not_found");
        }
    }

    #[test]
    fn a_core_token_or_refresh_token_is_not_an_identity_session() {
        let mut m = Mocks::new();
        m.signer
            .expect_verify_access()
            .returning(|_, _| Err(TokenError::Invalid));
        let error = block_on(m.service().sessions.authenticate_access("core.jwt.token")).unwrap_err();
        assert!(matches!(
            error,
            IdentityError::InvalidAccessToken(TokenError::Invalid)
        ));
        assert_eq!(error.error_code(), "bad_jwt");
    }

    #[test]
    fn claims_of_the_wrong_kind_are_refused_even_when_the_signer_lets_them_through() {
        let mut m = Mocks::new();
        let mut forged = access_claims(noon());
        forged.aud = "devportal-core".into();
        m.signer
            .expect_verify_access()
            .returning(move |_, _| Ok(forged.clone()));
        assert!(block_on(m.service().sessions.authenticate_access("x")).is_err());
    }

    #[test]
    fn a_new_password_is_checked_hashed_and_ends_the_other_sessions() {
        let mut m = Mocks::new();
        let claims = access_claims(noon());
        let (user, family) = (claims.sub, claims.session_id);
        m.accounts.expect_get().returning(move |_| {
            let mut a = account("dev@example.com", true);
            a.id = user;
            Ok(Some(a))
        });
        m.hasher.expect_hash().returning(|_| Ok("new-hash".into()));
        m.accounts
            .expect_set_password()
            .withf(move |id, hash, _, notice| {
                // The owner is told, in the same write.
                *id == user
                    && hash.as_deref() == Some("new-hash")
                    && notice.as_ref().is_some_and(|mail| {
                        mail.kind == crate::mail::EmailKind::SecurityNotice
                            && mail.to.as_str() == "dev@example.com"
                            && mail.text.contains("the password of your account was changed")
                    })
            })
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .with(
                eq(user),
                eq(Some(family)),
                eq(noon()),
                mockall::predicate::always(),
            )
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.links.expect_list_for_user().returning(|_| Ok(vec![]));
        m.live_session(&claims, false);
        let update = UserUpdate {
            password: Some("a brand new passphrase"),
            ..UserUpdate::default()
        };
        let record = block_on(m.service().account.update_user(&claims, update, None)).unwrap();
        assert_eq!(record.account.password_hash.as_deref(), Some("new-hash"));
    }

    /// A session that signed in an hour ago (a stolen token, say).
    fn stale_session() -> (Mocks, AccessTokenClaims) {
        session_signed_in_at(noon() - chrono::Duration::hours(1))
    }

    /// A session that signed in at `at` (its live head started then), of an account with a password.
    fn session_signed_in_at(at: DateTime<Utc>) -> (Mocks, AccessTokenClaims) {
        let claims = access_claims(at);
        let user = claims.sub;
        let mut m = Mocks::new();
        m.live_session(&claims, false);
        m.accounts.expect_get().returning(move |_| {
            let mut a = account("dev@example.com", true);
            a.id = user;
            a.password_hash = Some("current-hash".into());
            Ok(Some(a))
        });
        (m, claims)
    }

    #[test]
    fn a_session_that_signed_in_long_ago_needs_the_current_password_to_change_it() {
        let (mut m, claims) = stale_session();
        m.accounts.expect_set_password().never();
        m.refresh_tokens.expect_revoke_all_for_user().never();
        let update = UserUpdate {
            password: Some("a brand new passphrase"),
            ..UserUpdate::default()
        };
        let error = block_on(m.service().account.update_user(&claims, update, None)).unwrap_err();
        assert!(matches!(error, IdentityError::ReauthenticationNeeded));
        assert_eq!(error.error_code(), "reauthentication_needed");
    }

    #[test]
    fn the_right_current_password_allows_the_change_and_a_wrong_one_is_refused() {
        let (mut m, claims) = stale_session();
        m.hasher
            .expect_verify()
            .returning(|given, hash| Ok(given == "the old passphrase" && hash == "current-hash"));
        m.hasher.expect_hash().returning(|_| Ok("new-hash".into()));
        m.accounts
            .expect_set_password()
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.links.expect_list_for_user().returning(|_| Ok(vec![]));
        let service = m.service();
        let wrong = UserUpdate {
            password: Some("a brand new passphrase"),
            ..UserUpdate::default()
        };
        assert!(matches!(
            block_on(
                service
                    .account
                    .update_user(&claims, wrong, Some(given("a guess")))
            ),
            Err(IdentityError::InvalidCredentials)
        ));
        let right = UserUpdate {
            password: Some("a brand new passphrase"),
            ..UserUpdate::default()
        };
        assert!(
            block_on(
                service
                    .account
                    .update_user(&claims, right, Some(given("the old passphrase")))
            )
            .is_ok()
        );
    }

    #[test]
    fn a_wrong_current_password_is_refused_even_just_after_signing_in() {
        let (mut m, claims) = session_signed_in_at(noon());
        m.hasher
            .expect_verify()
            .returning(|given, _| Ok(given == "the old passphrase"));
        m.accounts.expect_set_password().never();
        m.refresh_tokens.expect_revoke_all_for_user().never();
        let update = UserUpdate {
            password: Some("a brand new passphrase"),
            ..UserUpdate::default()
        };
        assert!(matches!(
            block_on(
                m.service()
                    .account
                    .update_user(&claims, update, Some(given("a guess")))
            ),
            Err(IdentityError::InvalidCredentials)
        ));
    }

    #[test]
    fn a_new_password_must_follow_the_policy() {
        let service = fresh_with_account().service();
        let claims = access_claims(noon());
        for (password, message) in [
            ("short", "Password must be at least 12 characters"),
            (
                "qwertyuiop123",
                "This password is too common. Choose a less common one.",
            ),
            (
                "dev@example.com",
                "Password must not be your email address or a part of it",
            ),
        ] {
            let update = UserUpdate {
                password: Some(password),
                ..UserUpdate::default()
            };
            let error = block_on(service.account.update_user(&claims, update, None)).unwrap_err();
            assert_eq!(error.fields().unwrap().get("password"), Some(message));
        }
    }

    fn fresh_with_account() -> Mocks {
        let mut m = Mocks::new();
        m.accounts
            .expect_get()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m
    }

    #[test]
    fn profile_data_is_merged_and_names_the_user() {
        let mut m = Mocks::new();
        m.accounts
            .expect_get()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.accounts
            .expect_update_profile()
            .withf(|_, name, profile, _| name.as_deref() == Some("Ada") && profile == &json!({"name": "Ada"}))
            .times(1)
            .returning(|_, name, profile, _| {
                let mut a = account("dev@example.com", true);
                a.display_name = name;
                a.profile = profile.clone();
                Ok(a)
            });
        m.links.expect_list_for_user().returning(|_| Ok(vec![]));
        let claims = access_claims(noon());
        m.live_session(&claims, false);
        let data = json!({"name": "Ada"});
        let update = UserUpdate {
            data: Some(&data),
            ..UserUpdate::default()
        };
        let record = block_on(m.service().account.update_user(&claims, update, None)).unwrap();
        assert_eq!(record.account.display_name.as_deref(), Some("Ada"));
    }

    #[test]
    fn changing_the_email_address_is_not_offered_but_repeating_it_is_harmless() {
        let mut m = fresh_with_account();
        m.links.expect_list_for_user().returning(|_| Ok(vec![]));
        let claims = access_claims(noon());
        m.live_session(&claims, false);
        let service = m.service();
        let other = UserUpdate {
            email: Some("other@example.com"),
            ..UserUpdate::default()
        };
        assert!(matches!(
            block_on(service.account.update_user(&claims, other, None)),
            Err(IdentityError::EmailChangeUnsupported)
        ));
        let same = UserUpdate {
            email: Some("DEV@example.com"),
            ..UserUpdate::default()
        };
        assert!(block_on(service.account.update_user(&claims, same, None)).is_ok());
    }

    #[test]
    fn a_password_alone_of_a_protected_account_changes_neither_the_password_nor_the_email() {
        let (mut m, claims) = session_signed_in_at(noon());
        let mut totp =
            crate::identity::test_support::factor(crate::identity::factors::FactorStatus::Verified);
        totp.user_id = claims.sub;
        m.factors.factors.lock().unwrap().push(totp);
        m.hasher.expect_verify().returning(|_, _| Ok(true));
        m.accounts.expect_set_password().never();
        m.refresh_tokens.expect_revoke_all_for_user().never();
        let service = m.service();
        let password = UserUpdate {
            password: Some("a brand new passphrase"),
            ..UserUpdate::default()
        };
        let refused = block_on(service.account.update_user(
            &claims,
            password,
            Some(given("the old passphrase")),
        ))
        .unwrap_err();
        assert!(matches!(refused, IdentityError::Aal2RequiredToUpdateUser));
        let email = UserUpdate {
            email: Some("dev@example.com"),
            ..UserUpdate::default()
        };
        let refused = block_on(service.account.update_user(&claims, email, None)).unwrap_err();
        assert_eq!(refused.error_code(), "insufficient_aal");
    }

    #[test]
    fn a_deleted_account_is_not_found() {
        let mut m = Mocks::new();
        m.accounts.expect_get().returning(|_| Ok(None));
        let error = block_on(m.service().account.get_user(&access_claims(noon()))).unwrap_err();
        assert!(matches!(error, IdentityError::UserNotFound));
    }
}
