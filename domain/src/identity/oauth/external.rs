//! Sign-in with an external OpenID Connect provider (google, apple, github, azure), after the adapter has
//! completed the code exchange and verified the provider's ID token.
//!
//! The rule (PRODUCT.md §1): an external identity is found by `(issuer, subject)`. A new identity
//! - joins the account with the same e-mail only when the provider says the e-mail is verified **and** the
//!   account's e-mail is confirmed;
//! - when that account's address was never *proven* (confirmed at sign-up because no mailer is configured:
//!   whoever signed up may not own the mailbox), joins it as its owner: the provider has just proven the
//!   address, so the password set before and every session of the account end, and the address becomes
//!   proven. Otherwise a stranger who pre-registered the owner's address would share the account with
//!   the owner, password and sessions included;
//! - is refused when such an account exists but either condition fails (otherwise whoever controls an
//!   unverified address at some provider, or pre-registered an address, could take over the other side);
//! - creates a new, confirmed and proven account when none has the e-mail and the provider verified it;
//! - is refused when the provider shares no e-mail, or one it has not verified (an account needs an
//!   address somebody proved to own).
//!
//! A provider-proven address binds the platform role waiting for it (see the account repository).

use serde_json::Value;

use crate::common::{EmailAddress, RepoError};
use crate::identity::errors::IdentityError;
use crate::identity::models::{Account, AuthMethod, ExternalIdentity, display_name_of, merge_profile};
use std::sync::Arc;

use crate::identity::ports::{AccountRepository, IdentityLinkRepository};
use crate::identity::sessions::{Session, SessionIssuer};

/// What the provider told about the user.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderProfile {
    pub issuer: String,
    pub subject: String,
    /// `google`, `apple`, `github`, `azure`.
    pub provider: String,
    pub email: Option<String>,
    pub email_verified: bool,
    /// Name and picture claims, kept as the initial profile of a new account.
    pub claims: Value,
}

/// Sign-in with an external provider's verified identity (the linking rule above).
pub struct ProviderSignIn {
    issuer: Arc<SessionIssuer>,
    accounts: Arc<dyn AccountRepository>,
    links: Arc<dyn IdentityLinkRepository>,
}

impl ProviderSignIn {
    #[must_use]
    pub fn new(
        issuer: Arc<SessionIssuer>,
        accounts: Arc<dyn AccountRepository>,
        links: Arc<dyn IdentityLinkRepository>,
    ) -> Self {
        Self {
            issuer,
            accounts,
            links,
        }
    }
}

impl ProviderSignIn {
    /// Signs in (or up) with a provider identity; see the module documentation for the joining rule.
    ///
    /// # Errors
    /// [`IdentityError::ProviderEmailMissing`] when the provider shared no usable e-mail, or did not verify
    /// it for a new account; [`IdentityError::AccountNotLinkable`] when an account has the e-mail but may not
    /// be joined; [`IdentityError::SignupsDisabled`]; [`IdentityError::UserNotFound`] when a linked account
    /// is gone; a port failure.
    pub async fn sign_in_with_provider(&self, profile: ProviderProfile) -> Result<Session, IdentityError> {
        if let Some(link) = self.links.find(&profile.issuer, &profile.subject).await? {
            let account = self
                .accounts
                .get(link.user_id)
                .await?
                .ok_or(IdentityError::UserNotFound)?;
            return self.issuer.start_session(account, AuthMethod::OAuth).await;
        }
        let email = profile
            .email
            .as_deref()
            .and_then(|e| EmailAddress::parse(e).ok())
            .ok_or(IdentityError::ProviderEmailMissing)?;
        let account = match self.accounts.find_by_email(&email).await? {
            Some(existing) if profile.email_verified && existing.is_proven() => existing,
            Some(mut existing) if profile.email_verified && existing.is_confirmed() => {
                self.issuer.prove_address(&mut existing, None).await?;
                existing
            }
            Some(_) => return Err(IdentityError::AccountNotLinkable),
            None if !profile.email_verified => return Err(IdentityError::ProviderEmailMissing),
            None if !self.issuer.config().signups_enabled => return Err(IdentityError::SignupsDisabled),
            None => {
                self.create_provider_account(email.clone(), &profile.claims)
                    .await?
            }
        };
        let identity = ExternalIdentity {
            issuer: profile.issuer,
            subject: profile.subject,
            provider: profile.provider,
            user_id: account.id,
            email: Some(email),
            email_verified: profile.email_verified,
            linked_at: self.issuer.now(),
        };
        match self.links.link(&identity).await {
            Ok(()) => {}
            Err(RepoError::Duplicate(_)) => {
                // Linked concurrently: fine when to this same account.
                let linked = self.links.find(&identity.issuer, &identity.subject).await?;
                if linked.map(|l| l.user_id) != Some(account.id) {
                    return Err(IdentityError::AccountNotLinkable);
                }
            }
            Err(other) => return Err(other.into()),
        }
        self.issuer.start_session(account, AuthMethod::OAuth).await
    }

    async fn create_provider_account(
        &self,
        email: EmailAddress,
        claims: &Value,
    ) -> Result<Account, IdentityError> {
        let now = self.issuer.now();
        let mut account = Account::new(email, now);
        account.email_confirmed_at = Some(now);
        account.email_proven_at = Some(now);
        let kept = keep_profile_claims(claims);
        account.display_name = display_name_of(&kept);
        account.profile = kept;
        match self.accounts.create(&account).await {
            Ok(()) => Ok(account),
            Err(RepoError::Duplicate(_)) => Err(IdentityError::AccountNotLinkable),
            Err(other) => Err(other.into()),
        }
    }
}

/// The provider claims worth keeping in a new profile: `name`, `full_name`, `picture`, `avatar_url`
/// (strings only), merged as Supabase does.
fn keep_profile_claims(claims: &Value) -> Value {
    let empty = Value::Object(serde_json::Map::new());
    let kept: serde_json::Map<String, Value> = ["name", "full_name", "picture", "avatar_url"]
        .iter()
        .filter_map(|key| {
            let value = claims.get(key)?;
            value.is_string().then(|| ((*key).to_owned(), value.clone()))
        })
        .collect();
    merge_profile(&empty, &Value::Object(kept)).unwrap_or(empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::test_support::{Mocks, account, identity, unproven_account};
    use crate::testing::{block_on, noon};
    use serde_json::json;

    fn google(email: Option<&str>, verified: bool) -> ProviderProfile {
        ProviderProfile {
            issuer: "https://accounts.google.com".into(),
            subject: "g-123".into(),
            provider: "google".into(),
            email: email.map(str::to_owned),
            email_verified: verified,
            claims: json!({"name": "Ada", "picture": "https://img.test/a.png", "hd": 7}),
        }
    }

    #[test]
    fn a_known_provider_identity_signs_in_to_its_account() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", true);
        let link = identity("google", stored.id);
        m.links
            .expect_find()
            .returning(move |_, _| Ok(Some(link.clone())));
        m.accounts
            .expect_get()
            .returning(move |_| Ok(Some(stored.clone())));
        m.allow_session_storage();
        m.signer
            .expect_sign_access()
            .withf(|c| c.amr[0].method == "oauth")
            .returning(|_| Ok("access".into()));
        block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("other@example.com"), false)),
        )
        .unwrap();
    }

    #[test]
    fn a_verified_provider_email_joins_a_confirmed_account() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", true);
        let id = stored.id;
        m.links.expect_find().returning(|_, _| Ok(None));
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.links
            .expect_link()
            .withf(move |l| l.user_id == id && l.subject == "g-123" && l.linked_at == noon())
            .times(1)
            .returning(|_| Ok(()));
        m.allow_sessions();
        let session = block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("Dev@Example.com"), true)),
        )
        .unwrap();
        assert_eq!(session.user.account.id, id);
    }

    #[test]
    fn a_verified_provider_email_takes_over_an_account_whose_address_nobody_proved() {
        // No mailer: a stranger signed up with the owner's address (confirmed at once, not proven) and set a
        // password. The owner's provider sign-in proves the address: the stranger's password and sessions go.
        let mut m = Mocks::new();
        let squatted = unproven_account("owner@example.com");
        let id = squatted.id;
        m.links.expect_find().returning(|_, _| Ok(None));
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(squatted.clone())));
        let mut seq = mockall::Sequence::new();
        m.accounts
            .expect_set_password()
            .withf(move |user, hash, at, _| *user == id && hash.is_none() && *at == noon())
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .withf(move |user, keep, _, _| *user == id && keep.is_none())
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _, _, _| Ok(()));
        m.accounts
            .expect_prove_email()
            .with(mockall::predicate::eq(id), mockall::predicate::eq(noon()))
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(()));
        m.links
            .expect_link()
            .withf(move |l| l.user_id == id)
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(()));
        m.allow_sessions();
        let session = block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("owner@example.com"), true)),
        )
        .unwrap();
        assert_eq!(session.user.account.id, id);
        assert!(session.user.account.password_hash.is_none());
        assert!(session.user.account.is_proven());
    }

    #[test]
    fn an_unverified_provider_email_does_not_take_over_an_unproven_account() {
        let mut m = Mocks::new();
        m.links.expect_find().returning(|_, _| Ok(None));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(unproven_account("owner@example.com"))));
        m.accounts.expect_set_password().never();
        m.refresh_tokens.expect_revoke_all_for_user().never();
        m.links.expect_link().never();
        let error = block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("owner@example.com"), false)),
        )
        .unwrap_err();
        assert!(matches!(error, IdentityError::AccountNotLinkable));
    }

    #[test]
    fn joining_a_proven_account_keeps_its_password_and_sessions() {
        let mut m = Mocks::new();
        m.links.expect_find().returning(|_, _| Ok(None));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.accounts.expect_set_password().never();
        m.refresh_tokens.expect_revoke_all_for_user().never();
        m.accounts.expect_prove_email().never();
        m.links.expect_link().times(1).returning(|_| Ok(()));
        m.allow_sessions();
        let session = block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("dev@example.com"), true)),
        )
        .unwrap();
        assert!(session.user.account.password_hash.is_some());
    }

    #[test]
    fn an_unverified_provider_email_does_not_join_an_existing_account() {
        let mut m = Mocks::new();
        m.links.expect_find().returning(|_, _| Ok(None));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", true))));
        m.links.expect_link().never();
        let error = block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("dev@example.com"), false)),
        )
        .unwrap_err();
        assert!(matches!(error, IdentityError::AccountNotLinkable));
    }

    #[test]
    fn a_verified_provider_email_does_not_join_an_unconfirmed_account() {
        let mut m = Mocks::new();
        m.links.expect_find().returning(|_, _| Ok(None));
        m.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account("dev@example.com", false))));
        m.links.expect_link().never();
        let error = block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("dev@example.com"), true)),
        )
        .unwrap_err();
        assert!(matches!(error, IdentityError::AccountNotLinkable));
    }

    #[test]
    fn a_new_verified_provider_user_gets_a_confirmed_account_with_name_and_picture() {
        let mut m = Mocks::new();
        m.links.expect_find().returning(|_, _| Ok(None));
        m.accounts.expect_find_by_email().returning(|_| Ok(None));
        m.accounts
            .expect_create()
            .withf(|a| {
                a.is_confirmed()
                    && a.is_proven()
                    && a.password_hash.is_none()
                    && a.display_name.as_deref() == Some("Ada")
                    && a.profile == json!({"name": "Ada", "picture": "https://img.test/a.png"})
            })
            .times(1)
            .returning(|_| Ok(()));
        m.links.expect_link().times(1).returning(|_| Ok(()));
        m.allow_sessions();
        block_on(
            m.service()
                .providers
                .sign_in_with_provider(google(Some("new@example.com"), true)),
        )
        .unwrap();
    }

    #[test]
    fn a_provider_without_a_verified_email_cannot_create_an_account() {
        for profile in [
            google(None, true),
            google(Some("not an email"), true),
            google(Some("new@example.com"), false),
        ] {
            let mut m = Mocks::new();
            m.links.expect_find().returning(|_, _| Ok(None));
            m.accounts.expect_find_by_email().returning(|_| Ok(None));
            m.accounts.expect_create().never();
            let error = block_on(m.service().providers.sign_in_with_provider(profile)).unwrap_err();
            assert!(matches!(error, IdentityError::ProviderEmailMissing));
        }
    }

    #[test]
    fn a_concurrent_link_to_the_same_account_is_accepted() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", true);
        let link = identity("google", stored.id);
        let mut finds = 0;
        m.links.expect_find().returning(move |_, _| {
            finds += 1;
            Ok((finds > 1).then(|| link.clone()))
        });
        m.accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(stored.clone())));
        m.links
            .expect_link()
            .returning(|_| Err(RepoError::Duplicate("identity")));
        m.allow_sessions();
        assert!(
            block_on(
                m.service()
                    .providers
                    .sign_in_with_provider(google(Some("dev@example.com"), true))
            )
            .is_ok()
        );
    }
}
