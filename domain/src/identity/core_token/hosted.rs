//! The local account of a user of a hosted identity service (a hosted Supabase, PRODUCT.md §1 second
//! adapter).
//!
//! The hosted service owns the user; this server only verifies its access tokens. Memberships, apps and
//! every other foreign key still point at a row of `accounts`, so the first time a hosted user is seen (at
//! `POST /api/auth/exchange-token`, or on a product request carrying the hosted access token) that row is
//! made: the same id as the token's `sub`, the token's e-mail.
//!
//! Rules:
//! - An e-mail that belongs to another local account (another id) is never taken over: a hosted user
//!   whose token names it is refused ([`HostedAccountError::EmailInUse`]). Otherwise whoever registers an
//!   address at the hosted service would step into a local account's platform role or invitations.
//! - The address counts as proven only when the token says so in a place the user cannot write
//!   ([`email_proven`]); `user_metadata` is the user's own and proves nothing. Here confirmed and proven
//!   go together (the hosted service confirms); a proven address binds the platform role waiting for it.
//! - A hosted user whose e-mail changed at the hosted service gets the new address on the local row (not
//!   proven until the token says so), unless another account has it.
//! - Concurrent first requests of one user make one row: a lost insert race re-reads the winner's row.
//! - Hosted sessions are not ours to see: a hosted access token is trusted until its `exp`, even when the
//!   user signed out at the hosted service.

use chrono::{DateTime, Utc};
use std::sync::Arc;

use crate::common::{Clock, RepoError, UserId};
use crate::identity::models::{Account, AuthMethod};
use crate::identity::ports::AccountRepository;
use crate::identity::sessions::tokens::AccessTokenClaims;

/// Why a hosted user's local account could not be made or used.
#[derive(Debug, thiserror::Error)]
pub enum HostedAccountError {
    /// 409: the token's e-mail belongs to another local account. `user` is the hosted user refused (the
    /// adapter logs it).
    #[error("This e-mail address belongs to another account on this server.")]
    EmailInUse { user: UserId },
    /// 500: the account store failed.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// `amr` methods that deliver something to the address (a link or code by e-mail): a session started
/// with one of them proves the address. `otp` is left out on purpose: a hosted service sends it by
/// text message too.
const EMAIL_PROVING_METHODS: [&str; 4] = [
    AuthMethod::MagicLink.code(),
    AuthMethod::EmailSignup.code(),
    AuthMethod::Recovery.code(),
    "invite",
];

/// Whether a hosted access token shows its e-mail as proven: the service's own `email_verified` claim
/// (a custom access-token hook), `app_metadata.email_verified` (writable by the service role only), or a
/// session started from an e-mailed link. `user_metadata` (writable by the user) is never consulted.
#[must_use]
pub fn email_proven(claims: &AccessTokenClaims) -> bool {
    claims.email_verified == Some(true)
        || claims.app_metadata.email_verified == Some(true)
        || claims
            .amr
            .iter()
            .any(|entry| EMAIL_PROVING_METHODS.contains(&entry.method.as_str()))
}

/// Makes and keeps the local accounts of hosted users.
pub struct HostedAccounts {
    accounts: Arc<dyn AccountRepository>,
    clock: Arc<dyn Clock>,
}

impl HostedAccounts {
    #[must_use]
    pub fn new(accounts: Arc<dyn AccountRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { accounts, clock }
    }

    /// The local account of the hosted user the (already verified) claims describe, made on first use;
    /// see the module documentation for the rules.
    ///
    /// # Errors
    /// [`HostedAccountError::EmailInUse`] when another local account has the token's e-mail;
    /// [`HostedAccountError::Repo`] when the store fails.
    pub async fn ensure(&self, claims: &AccessTokenClaims) -> Result<Account, HostedAccountError> {
        let now = self.clock.now();
        let proven = email_proven(claims);
        if let Some(existing) = self.accounts.get(claims.sub).await? {
            return self.keep_current(existing, claims, proven, now).await;
        }
        match self.accounts.find_by_email(&claims.email).await? {
            // A concurrent first request of the same user made the row since.
            Some(same) if same.id == claims.sub => {
                return self.keep_current(same, claims, proven, now).await;
            }
            Some(_) => return Err(HostedAccountError::EmailInUse { user: claims.sub }),
            None => {}
        }
        let mut account = Account::new(claims.email.clone(), now);
        account.id = claims.sub;
        account.email_confirmed_at = proven.then_some(now);
        account.email_proven_at = proven.then_some(now);
        account.last_sign_in_at = Some(now);
        match self.accounts.create(&account).await {
            Ok(()) => Ok(account),
            Err(RepoError::Duplicate(_)) => {
                // Either a concurrent first request of the same user made the row, or another account took
                // the e-mail meanwhile.
                match self.accounts.get(claims.sub).await? {
                    Some(existing) => self.keep_current(existing, claims, proven, now).await,
                    None => match self.accounts.find_by_email(&claims.email).await? {
                        Some(same) if same.id == claims.sub => {
                            self.keep_current(same, claims, proven, now).await
                        }
                        Some(_) => Err(HostedAccountError::EmailInUse { user: claims.sub }),
                        None => Err(RepoError::Conflict(
                            "the account of a hosted user could not be stored".into(),
                        )
                        .into()),
                    },
                }
            }
            Err(other) => Err(other.into()),
        }
    }

    /// Brings an existing row up to date with the token: a new e-mail, a newly proven address.
    async fn keep_current(
        &self,
        mut account: Account,
        claims: &AccessTokenClaims,
        proven: bool,
        now: DateTime<Utc>,
    ) -> Result<Account, HostedAccountError> {
        if account.email != claims.email {
            if let Some(other) = self.accounts.find_by_email(&claims.email).await?
                && other.id != account.id
            {
                return Err(HostedAccountError::EmailInUse { user: claims.sub });
            }
            let proven_at = proven.then_some(now);
            match self
                .accounts
                .change_email(account.id, &claims.email, proven_at, now)
                .await
            {
                Ok(()) => {}
                Err(RepoError::Duplicate(_)) => {
                    // Taken by another account meanwhile.
                    return Err(HostedAccountError::EmailInUse { user: claims.sub });
                }
                Err(other) => return Err(other.into()),
            }
            account.email = claims.email.clone();
            account.email_confirmed_at = proven_at;
            account.email_proven_at = proven_at;
            account.updated_at = now;
        } else if proven && !account.is_proven() {
            self.accounts.prove_email(account.id, now).await?;
            account.email_confirmed_at.get_or_insert(now);
            account.email_proven_at = Some(now);
        }
        Ok(account)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::UserId;
    use crate::identity::ports::MockAccountRepository;
    use crate::identity::sessions::tokens::AmrEntry;
    use crate::identity::test_support::{access_claims, email};
    use crate::testing::{block_on, fixed_clock, noon};
    use chrono::Duration;
    use mockall::predicate::eq;
    use serde_json::json;

    fn service(accounts: MockAccountRepository) -> HostedAccounts {
        HostedAccounts::new(Arc::new(accounts), Arc::new(fixed_clock()))
    }

    fn with_method(method: &str) -> AccessTokenClaims {
        let mut claims = access_claims(noon());
        claims.amr = vec![AmrEntry {
            method: method.into(),
            timestamp: noon().timestamp(),
        }];
        claims
    }

    fn stored(claims: &AccessTokenClaims, confirmed: bool) -> Account {
        let mut account = Account::new(claims.email.clone(), noon() - Duration::days(1));
        account.id = claims.sub;
        account.email_confirmed_at = confirmed.then(|| noon() - Duration::days(1));
        account.email_proven_at = account.email_confirmed_at;
        account
    }

    #[test]
    fn a_password_session_does_not_prove_the_address() {
        assert!(!email_proven(&with_method("password")));
        assert!(!email_proven(&with_method("otp")));
        assert!(!email_proven(&with_method("oauth")));
    }

    #[test]
    fn an_emailed_link_or_the_services_own_claims_prove_the_address() {
        assert!(email_proven(&with_method("magiclink")));
        assert!(email_proven(&with_method("email/signup")));
        assert!(email_proven(&with_method("recovery")));
        let mut claims = with_method("password");
        claims.email_verified = Some(true);
        assert!(email_proven(&claims));
        let mut claims = with_method("password");
        claims.app_metadata.email_verified = Some(true);
        assert!(email_proven(&claims));
    }

    #[test]
    fn the_users_own_metadata_proves_nothing() {
        let mut claims = with_method("password");
        claims.user_metadata = json!({"email_verified": true, "email_confirmed_at": "2026-01-01T00:00:00Z"});
        assert!(!email_proven(&claims));
    }

    #[test]
    fn a_first_request_makes_the_account_with_the_hosted_id_and_email() {
        let claims = with_method("password");
        let (sub, address) = (claims.sub, claims.email.clone());
        let mut accounts = MockAccountRepository::new();
        accounts
            .expect_get()
            .with(eq(sub))
            .times(1)
            .returning(|_| Ok(None));
        accounts.expect_find_by_email().returning(|_| Ok(None));
        accounts
            .expect_create()
            .withf(move |a| {
                a.id == sub
                    && a.email == address
                    && a.email_confirmed_at.is_none()
                    && a.email_proven_at.is_none()
                    && a.password_hash.is_none()
                    && a.created_at == noon()
            })
            .times(1)
            .returning(|_| Ok(()));
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert_eq!(account.id, sub);
        assert!(!account.is_confirmed());
    }

    #[test]
    fn a_proven_first_request_makes_a_confirmed_and_proven_account() {
        let claims = with_method("magiclink");
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().returning(|_| Ok(None));
        accounts.expect_find_by_email().returning(|_| Ok(None));
        accounts
            .expect_create()
            .withf(|a| a.email_confirmed_at == Some(noon()) && a.email_proven_at == Some(noon()))
            .returning(|_| Ok(()));
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert!(account.is_confirmed() && account.is_proven());
    }

    #[test]
    fn a_known_user_is_not_stored_again() {
        let claims = with_method("password");
        let row = stored(&claims, false);
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().returning(move |_| Ok(Some(row.clone())));
        accounts.expect_create().never();
        accounts.expect_prove_email().never();
        accounts.expect_change_email().never();
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert_eq!(account.id, claims.sub);
    }

    #[test]
    fn a_known_user_whose_address_is_now_proven_is_confirmed_and_proven() {
        let claims = with_method("magiclink");
        let row = stored(&claims, false);
        let sub = claims.sub;
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().returning(move |_| Ok(Some(row.clone())));
        accounts
            .expect_prove_email()
            .with(eq(sub), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert!(account.is_confirmed() && account.is_proven());
    }

    #[test]
    fn a_confirmed_but_unproven_row_is_proven_by_a_proving_token() {
        // A row confirmed before proof was recorded separately: the next proving token records it.
        let claims = with_method("magiclink");
        let mut row = stored(&claims, true);
        row.email_proven_at = None;
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().returning(move |_| Ok(Some(row.clone())));
        accounts.expect_prove_email().times(1).returning(|_, _| Ok(()));
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert_eq!(account.email_confirmed_at, Some(noon() - Duration::days(1)));
        assert_eq!(account.email_proven_at, Some(noon()));
    }

    #[test]
    fn an_email_of_another_local_account_is_not_captured() {
        let claims = with_method("magiclink");
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().returning(|_| Ok(None));
        accounts.expect_find_by_email().returning(|address| {
            let mut other = Account::new(address.clone(), noon());
            other.email_confirmed_at = Some(noon());
            Ok(Some(other))
        });
        accounts.expect_create().never();
        let error = block_on(service(accounts).ensure(&claims)).unwrap_err();
        assert!(matches!(error, HostedAccountError::EmailInUse { .. }));
    }

    #[test]
    fn a_lost_insert_race_uses_the_winners_row() {
        let claims = with_method("password");
        let row = stored(&claims, false);
        let mut accounts = MockAccountRepository::new();
        let mut seq = mockall::Sequence::new();
        accounts
            .expect_get()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(None));
        accounts
            .expect_find_by_email()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(None));
        accounts
            .expect_create()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Err(RepoError::Duplicate("email")));
        accounts
            .expect_get()
            .times(1)
            .in_sequence(&mut seq)
            .returning(move |_| Ok(Some(row.clone())));
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert_eq!(account.id, claims.sub);
    }

    #[test]
    fn a_row_made_by_a_concurrent_request_between_the_two_reads_is_used() {
        // The id was absent at the first read; by the e-mail lookup the same user's other request has made it.
        let claims = with_method("password");
        let row = stored(&claims, false);
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().times(1).returning(|_| Ok(None));
        accounts
            .expect_find_by_email()
            .times(1)
            .returning(move |_| Ok(Some(row.clone())));
        accounts.expect_create().never();
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert_eq!(account.id, claims.sub);
    }

    #[test]
    fn a_lost_race_for_the_email_against_another_account_is_refused() {
        let claims = with_method("password");
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().times(2).returning(|_| Ok(None));
        let mut seq = mockall::Sequence::new();
        accounts
            .expect_find_by_email()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(None));
        accounts
            .expect_find_by_email()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|address| Ok(Some(Account::new(address.clone(), noon()))));
        accounts
            .expect_create()
            .returning(|_| Err(RepoError::Duplicate("email")));
        let error = block_on(service(accounts).ensure(&claims)).unwrap_err();
        assert!(matches!(error, HostedAccountError::EmailInUse { .. }));
    }

    #[test]
    fn a_changed_hosted_email_moves_to_the_local_row_unproven() {
        let claims = with_method("password");
        let mut row = stored(&claims, true);
        row.email = email("old@example.com");
        let sub = claims.sub;
        let new_address = claims.email.clone();
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().returning(move |_| Ok(Some(row.clone())));
        accounts.expect_find_by_email().returning(|_| Ok(None));
        accounts
            .expect_change_email()
            .withf(move |id, address, proven, now| {
                *id == sub && *address == new_address && proven.is_none() && *now == noon()
            })
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let account = block_on(service(accounts).ensure(&claims)).unwrap();
        assert_eq!(account.email, claims.email);
        assert!(!account.is_confirmed() && !account.is_proven());
    }

    #[test]
    fn a_changed_hosted_email_that_another_account_has_is_refused() {
        let claims = with_method("magiclink");
        let mut row = stored(&claims, true);
        row.email = email("old@example.com");
        let mut accounts = MockAccountRepository::new();
        accounts.expect_get().returning(move |_| Ok(Some(row.clone())));
        accounts.expect_find_by_email().returning(|address| {
            let mut other = Account::new(address.clone(), noon());
            other.id = UserId::new();
            Ok(Some(other))
        });
        accounts.expect_change_email().never();
        let error = block_on(service(accounts).ensure(&claims)).unwrap_err();
        assert!(matches!(error, HostedAccountError::EmailInUse { .. }));
        let mut accounts = MockAccountRepository::new();
        let mut row = stored(&claims, true);
        row.email = email("old@example.com");
        accounts.expect_get().returning(move |_| Ok(Some(row.clone())));
        accounts.expect_find_by_email().returning(|_| Ok(None));
        accounts
            .expect_change_email()
            .returning(|_, _, _, _| Err(RepoError::Duplicate("email")));
        let error = block_on(service(accounts).ensure(&claims)).unwrap_err();
        assert!(matches!(error, HostedAccountError::EmailInUse { .. }));
    }

    #[test]
    fn a_store_failure_is_not_taken_for_a_refusal() {
        let claims = with_method("password");
        let mut accounts = MockAccountRepository::new();
        accounts
            .expect_get()
            .returning(|_| Err(RepoError::Conflict("down".into())));
        let error = block_on(service(accounts).ensure(&claims)).unwrap_err();
        assert!(matches!(error, HostedAccountError::Repo(_)));
    }
}
