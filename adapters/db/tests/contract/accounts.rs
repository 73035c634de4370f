//! Accounts and provider links of the built-in identity service.

use crate::fixtures::{self, email};
use adapter_db::repos::{DieselAccountRepository, DieselIdentityLinkRepository};
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::{RepoError, UserId};
use domain::identity::models::{Account, ExternalIdentity};
use domain::identity::ports::{AccountRepository, IdentityLinkRepository};
use serde_json::json;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap() + Duration::milliseconds(250)
}

fn full_account(address: &str) -> Account {
    let mut account = Account::new(email(address), noon());
    account.password_hash = Some("$argon2id$hash".into());
    account.email_confirmed_at = Some(noon() + Duration::minutes(1));
    account.email_proven_at = Some(noon() + Duration::minutes(1));
    account.last_sign_in_at = Some(noon() + Duration::minutes(2));
    account.display_name = Some("Ada".into());
    account.profile = json!({"full_name": "Ada", "nested": {"n": [1, 2]}});
    account
}

fn identity(user: UserId, issuer: &str, subject: &str, linked_at: DateTime<Utc>) -> ExternalIdentity {
    ExternalIdentity {
        issuer: issuer.into(),
        subject: subject.into(),
        provider: "google".into(),
        user_id: user,
        email: Some(email("ada@gmail.test")),
        email_verified: true,
        linked_at,
    }
}

contract! {
    async fn a_created_account_reads_back_by_id_and_by_email(db) {
        let repo = DieselAccountRepository::new(db.clone());
        let account = full_account("Ada@Example.com");
        repo.create(&account).await.unwrap();
        assert_eq!(repo.get(account.id).await.unwrap(), Some(account.clone()));
        assert_eq!(repo.find_by_email(&email("ada@example.com")).await.unwrap(), Some(account));
        assert_eq!(repo.find_by_email(&email("other@example.com")).await.unwrap(), None);
        assert_eq!(repo.get(UserId::new()).await.unwrap(), None);
        let bare = Account::new(email("bare@example.com"), noon());
        repo.create(&bare).await.unwrap();
        assert_eq!(repo.get(bare.id).await.unwrap(), Some(bare));
    }

    async fn a_second_account_with_the_same_email_is_a_duplicate(db) {
        let repo = DieselAccountRepository::new(db.clone());
        repo.create(&Account::new(email("twice@example.com"), noon())).await.unwrap();
        let again = Account::new(email("TWICE@example.com"), noon());
        let result = repo.create(&again).await;
        assert!(matches!(result, Err(RepoError::Duplicate("email"))), "{result:?}");
        assert_eq!(repo.get(again.id).await.unwrap(), None);
    }

    async fn a_password_is_replaced_and_removed_and_updated_at_moves(db) {
        let repo = DieselAccountRepository::new(db.clone());
        let account = full_account("pw@example.com");
        repo.create(&account).await.unwrap();
        let later = noon() + Duration::hours(1);
        let changed = crate::fixtures::notice("pw@example.com", "password changed");
        repo.set_password(account.id, Some("new-hash".into()), later, Some(changed)).await.unwrap();
        let stored = repo.get(account.id).await.unwrap().unwrap();
        assert_eq!((stored.password_hash.as_deref(), stored.updated_at), (Some("new-hash"), later));
        assert_eq!(crate::fixtures::notices(db).await, ["Security: password changed"]);
        repo.set_password(account.id, None, later, None).await.unwrap();
        assert_eq!(repo.get(account.id).await.unwrap().unwrap().password_hash, None);
        // No account: nothing changes, and the notice is not written either.
        let stray = crate::fixtures::notice("pw@example.com", "stray");
        let missing = repo.set_password(UserId::new(), None, later, Some(stray)).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
        assert_eq!(crate::fixtures::notices(db).await.len(), 1);
    }

    async fn confirming_an_email_is_idempotent_and_keeps_the_first_time(db) {
        let repo = DieselAccountRepository::new(db.clone());
        let account = Account::new(email("confirm@example.com"), noon());
        repo.create(&account).await.unwrap();
        repo.confirm_email(account.id, noon() + Duration::minutes(5)).await.unwrap();
        repo.confirm_email(account.id, noon() + Duration::minutes(9)).await.unwrap();
        let stored = repo.get(account.id).await.unwrap().unwrap();
        assert_eq!(stored.email_confirmed_at, Some(noon() + Duration::minutes(5)));
        let missing = repo.confirm_email(UserId::new(), noon()).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
    }

    async fn proving_an_email_keeps_the_first_proof_and_confirms_if_needed(db) {
        let repo = DieselAccountRepository::new(db.clone());
        let unconfirmed = Account::new(email("new@example.com"), noon());
        repo.create(&unconfirmed).await.unwrap();
        repo.prove_email(unconfirmed.id, noon() + Duration::minutes(5)).await.unwrap();
        repo.prove_email(unconfirmed.id, noon() + Duration::minutes(9)).await.unwrap();
        let stored = repo.get(unconfirmed.id).await.unwrap().unwrap();
        let first = Some(noon() + Duration::minutes(5));
        assert_eq!((stored.email_confirmed_at, stored.email_proven_at), (first, first));
        // Confirmed at sign-up without a mailer: proving keeps that confirmation time.
        let mut confirmed = Account::new(email("confirmed@example.com"), noon());
        confirmed.email_confirmed_at = Some(noon());
        repo.create(&confirmed).await.unwrap();
        assert!(!repo.get(confirmed.id).await.unwrap().unwrap().is_proven());
        repo.prove_email(confirmed.id, noon() + Duration::hours(1)).await.unwrap();
        let stored = repo.get(confirmed.id).await.unwrap().unwrap();
        assert_eq!(
            (stored.email_confirmed_at, stored.email_proven_at),
            (Some(noon()), Some(noon() + Duration::hours(1)))
        );
        let missing = repo.prove_email(UserId::new(), noon()).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
    }

    async fn a_sign_in_is_recorded(db) {
        let repo = DieselAccountRepository::new(db.clone());
        let account = Account::new(email("signin@example.com"), noon());
        repo.create(&account).await.unwrap();
        repo.touch_sign_in(account.id, noon() + Duration::days(1)).await.unwrap();
        let stored = repo.get(account.id).await.unwrap().unwrap();
        assert_eq!(stored.last_sign_in_at, Some(noon() + Duration::days(1)));
        assert_eq!(stored.updated_at, noon(), "a sign-in is not a change of the account");
        let missing = repo.touch_sign_in(UserId::new(), noon()).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
    }

    async fn a_profile_update_replaces_name_and_profile_and_answers_the_stored_account(db) {
        let repo = DieselAccountRepository::new(db.clone());
        let account = full_account("profile@example.com");
        let other = full_account("untouched@example.com");
        repo.create(&account).await.unwrap();
        repo.create(&other).await.unwrap();
        let later = noon() + Duration::hours(3);
        let profile = json!({"name": "Grace", "theme": "dark"});
        let updated = repo
            .update_profile(account.id, Some("Grace".into()), &profile, later)
            .await
            .unwrap();
        assert_eq!(updated.display_name.as_deref(), Some("Grace"));
        assert_eq!((updated.profile.clone(), updated.updated_at), (profile, later));
        assert_eq!(updated.password_hash, account.password_hash);
        assert_eq!(repo.get(account.id).await.unwrap(), Some(updated));
        assert_eq!(repo.get(other.id).await.unwrap(), Some(other));
        let cleared = repo.update_profile(account.id, None, &json!({}), later).await.unwrap();
        assert_eq!((cleared.display_name, cleared.profile), (None, json!({})));
        let missing = repo.update_profile(UserId::new(), None, &json!({}), later).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
    }

    async fn an_email_change_moves_the_address_and_its_confirmation(db) {
        let repo = DieselAccountRepository::new(db.clone());
        let account = full_account("before@example.com");
        let other = full_account("taken@example.com");
        repo.create(&account).await.unwrap();
        repo.create(&other).await.unwrap();
        let later = noon() + Duration::hours(2);
        repo.change_email(account.id, &email("after@example.com"), None, later).await.unwrap();
        let stored = repo.get(account.id).await.unwrap().unwrap();
        assert_eq!(stored.email, email("after@example.com"));
        assert_eq!((stored.email_confirmed_at, stored.email_proven_at, stored.updated_at), (None, None, later));
        assert_eq!(stored.password_hash, account.password_hash);
        assert_eq!(repo.find_by_email(&email("before@example.com")).await.unwrap(), None);
        repo.change_email(account.id, &email("after@example.com"), Some(later), later).await.unwrap();
        let stored = repo.get(account.id).await.unwrap().unwrap();
        assert_eq!((stored.email_confirmed_at, stored.email_proven_at), (Some(later), Some(later)));
        let taken = repo.change_email(account.id, &email("TAKEN@example.com"), None, later).await;
        assert!(matches!(taken, Err(RepoError::Duplicate("email"))), "{taken:?}");
        assert_eq!(repo.get(account.id).await.unwrap().unwrap().email, email("after@example.com"));
        assert_eq!(repo.get(other.id).await.unwrap(), Some(other));
        let missing = repo.change_email(UserId::new(), &email("x@example.com"), None, later).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
    }

    async fn concurrent_creates_of_one_id_store_one_row(db) {
        // Two first requests of one hosted user race to create its account: one wins, the other is told
        // `Duplicate` and finds the winner's row.
        let repo = DieselAccountRepository::new(db.clone());
        let first = Account::new(email("race@example.com"), noon());
        let tasks: Vec<_> = (0..4)
            .map(|_| {
                let (repo, account) = (repo.clone(), first.clone());
                tokio::spawn(async move { repo.create(&account).await })
            })
            .collect();
        let mut wins = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => wins += 1,
                Err(RepoError::Duplicate("email")) => {}
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(wins, 1);
        assert_eq!(repo.get(first.id).await.unwrap(), Some(first.clone()));
        // The same id with another e-mail is a duplicate too (the primary key).
        let mut same_id = Account::new(email("another@example.com"), noon());
        same_id.id = first.id;
        let result = repo.create(&same_id).await;
        assert!(matches!(result, Err(RepoError::Duplicate(_))), "{result:?}");
        assert_eq!(repo.find_by_email(&email("another@example.com")).await.unwrap(), None);
    }

    async fn a_provider_identity_link_reads_back(db) {
        let repo = DieselIdentityLinkRepository::new(db.clone());
        let user = fixtures::account(db, "linked@example.com");
        let link = identity(user, "https://accounts.google.test", "sub-1", noon());
        repo.link(&link).await.unwrap();
        assert_eq!(repo.find("https://accounts.google.test", "sub-1").await.unwrap(), Some(link));
        assert_eq!(repo.find("https://accounts.google.test", "sub-2").await.unwrap(), None);
        assert_eq!(repo.find("https://other.test", "sub-1").await.unwrap(), None);
        let mut without_email = identity(user, "https://appleid.test", "a-1", noon());
        without_email.email = None;
        without_email.email_verified = false;
        without_email.provider = "apple".into();
        repo.link(&without_email).await.unwrap();
        assert_eq!(repo.find("https://appleid.test", "a-1").await.unwrap(), Some(without_email));
    }

    async fn linking_the_same_provider_identity_twice_is_a_duplicate(db) {
        let repo = DieselIdentityLinkRepository::new(db.clone());
        let first = fixtures::account(db, "first@example.com");
        let second = fixtures::account(db, "second@example.com");
        repo.link(&identity(first, "https://idp.test", "s", noon())).await.unwrap();
        let result = repo.link(&identity(second, "https://idp.test", "s", noon())).await;
        assert!(matches!(result, Err(RepoError::Duplicate("identity"))), "{result:?}");
        assert_eq!(repo.find("https://idp.test", "s").await.unwrap().unwrap().user_id, first);
        assert!(repo.list_for_user(second).await.unwrap().is_empty());
    }

    async fn a_users_identities_are_listed_oldest_first_and_only_theirs(db) {
        let repo = DieselIdentityLinkRepository::new(db.clone());
        let user = fixtures::account(db, "many@example.com");
        let other = fixtures::account(db, "other@example.com");
        let newer = identity(user, "https://github.test", "g", noon() + Duration::days(2));
        let older = identity(user, "https://google.test", "o", noon());
        repo.link(&newer).await.unwrap();
        repo.link(&older).await.unwrap();
        repo.link(&identity(other, "https://google.test", "x", noon())).await.unwrap();
        assert_eq!(repo.list_for_user(user).await.unwrap(), vec![older, newer]);
        assert!(repo.list_for_user(UserId::new()).await.unwrap().is_empty());
    }
}
