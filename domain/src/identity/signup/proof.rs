//! The first proof of an account's address, whichever door it comes through: an e-mailed link or code
//! (sign-up confirmation, magic link, six-digit code, recovery) or a provider that asserts a verified
//! e-mail (PRODUCT.md §1, "A proof by e-mail weighs what a proof by a provider weighs").
//!
//! Until its address is proven, an account may belong to whoever typed the address first (a portal without
//! SMTP makes accounts usable at once). The first proof hands the account to the mailbox owner: every
//! password set before the proof goes (except the one the proving browser itself chose at its own sign-up),
//! every session and refresh family ends (and with them the access and core tokens made from them), and
//! only then is the address recorded as proven, which binds a platform role waiting for it. The order
//! matters: a failure half-way leaves an unproven account that the next proof takes over again.

use crate::identity::errors::IdentityError;
use crate::identity::models::Account;
use crate::identity::sessions::SessionIssuer;

/// What a first proof changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Proof {
    /// A password set before the proof was removed: the user should be asked to choose one.
    pub password_removed: bool,
}

impl SessionIssuer {
    /// Records the first proof of `account`'s address (nothing happens for an account already proven).
    /// `kept_password` is the password hash the proving browser chose at its own sign-up, if any: it
    /// becomes the account's password; any other goes.
    ///
    /// # Errors
    /// A port failure (the account then stays unproven).
    pub(in crate::identity) async fn prove_address(
        &self,
        account: &mut Account,
        kept_password: Option<String>,
    ) -> Result<Proof, IdentityError> {
        if account.is_proven() {
            return Ok(Proof::default());
        }
        let now = self.now();
        let password_removed = account.password_hash.is_some() && kept_password.is_none();
        if account.password_hash.is_some() || kept_password.is_some() {
            self.accounts
                .set_password(account.id, kept_password.clone(), now, None)
                .await?;
            account.password_hash = kept_password;
            account.updated_at = now;
        }
        self.refresh_tokens
            .revoke_all_for_user(account.id, None, now, None)
            .await?;
        self.accounts.prove_email(account.id, now).await?;
        account.email_confirmed_at.get_or_insert(now);
        account.email_proven_at = Some(now);
        Ok(Proof { password_removed })
    }
}

#[cfg(test)]
mod tests {
    use crate::identity::test_support::{Mocks, account, unproven_account};
    use crate::testing::{block_on, noon};
    use mockall::Sequence;
    use mockall::predicate::{always, eq};

    #[test]
    fn a_first_proof_removes_the_password_ends_every_session_and_only_then_records_the_proof() {
        let mut m = Mocks::new();
        let mut order = Sequence::new();
        let mut squatted = unproven_account("owner@example.com");
        let id = squatted.id;
        m.accounts
            .expect_set_password()
            .with(eq(id), eq(None), eq(noon()), mockall::predicate::always())
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .with(eq(id), eq(None), eq(noon()), mockall::predicate::always())
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _, _, _| Ok(()));
        m.accounts
            .expect_prove_email()
            .with(eq(id), eq(noon()))
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _| Ok(()));
        let proof = block_on(m.service().issuer.prove_address(&mut squatted, None)).unwrap();
        assert!(proof.password_removed);
        assert!(squatted.password_hash.is_none() && squatted.is_proven());
    }

    #[test]
    fn the_password_the_proving_browser_chose_at_sign_up_is_kept() {
        let mut m = Mocks::new();
        let mut pending = account("owner@example.com", false);
        pending.password_hash = None;
        m.accounts
            .expect_set_password()
            .with(
                always(),
                eq(Some("chosen".to_owned())),
                always(),
                mockall::predicate::always(),
            )
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .returning(|_, _, _, _| Ok(()));
        m.accounts.expect_prove_email().returning(|_, _| Ok(()));
        let proof = block_on(
            m.service()
                .issuer
                .prove_address(&mut pending, Some("chosen".into())),
        )
        .unwrap();
        assert!(!proof.password_removed);
        assert_eq!(pending.password_hash.as_deref(), Some("chosen"));
        assert_eq!(pending.email_confirmed_at, Some(noon()));
    }

    #[test]
    fn an_account_already_proven_is_left_alone() {
        let mut m = Mocks::new();
        m.accounts.expect_set_password().never();
        m.refresh_tokens.expect_revoke_all_for_user().never();
        m.accounts.expect_prove_email().never();
        let mut owned = account("owner@example.com", true);
        let proof = block_on(m.service().issuer.prove_address(&mut owned, None)).unwrap();
        assert!(!proof.password_removed && owned.password_hash.is_some());
    }

    #[test]
    fn a_failed_session_revocation_leaves_the_address_unproven() {
        let mut m = Mocks::new();
        m.accounts.expect_set_password().returning(|_, _, _, _| Ok(()));
        m.refresh_tokens
            .expect_revoke_all_for_user()
            .returning(|_, _, _, _| Err(crate::common::RepoError::backend("revoke", "down")));
        m.accounts.expect_prove_email().never();
        let mut squatted = unproven_account("owner@example.com");
        assert!(block_on(m.service().issuer.prove_address(&mut squatted, None)).is_err());
        assert!(!squatted.is_proven());
    }
}
