//! Platform admins and reviewers: the list, role changes, the guard that keeps one bound admin, roles bound
//! to accounts or waiting for a proven address, and addresses seeded once.

use crate::fixtures::audit;
use crate::fixtures::{self, email};
use adapter_db::repos::{DieselAccountRepository, DieselPlatformAdminRepository};
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::{PlatformRole, RepoError, UserId};
use domain::identity::models::{Account, GrantBinding, PlatformAdmin};
use domain::identity::ports::{AccountRepository, PlatformAdminRepository};

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

/// An account with a proven address (as after an e-mailed code).
async fn proven_account(db: &adapter_db::Db, address: &str) -> UserId {
    let mut account = Account::new(email(address), noon());
    account.email_confirmed_at = Some(noon());
    account.email_proven_at = Some(noon());
    DieselAccountRepository::new(db.clone())
        .create(&account)
        .await
        .unwrap();
    account.id
}

/// Bound admins (or reviewers) with proven accounts of these addresses.
async fn seeded(db: &adapter_db::Db, repo: &DieselPlatformAdminRepository, entries: &[(&str, PlatformRole)]) {
    for (address, role) in entries {
        proven_account(db, address).await;
        let granted = repo
            .grant(
                &email(address),
                *role,
                None,
                GrantBinding::ProvenAccount,
                noon(),
                &audit(),
            )
            .await
            .unwrap();
        assert!(granted.is_bound());
    }
}

contract! {
    async fn added_entries_are_listed_by_email_and_read_back(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        let root_id = proven_account(db, "root@x.io").await;
        let root = repo
            .grant(&email("root@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit())
            .await
            .unwrap();
        assert_eq!(
            root,
            PlatformAdmin {
                email: email("root@x.io"),
                user_id: Some(root_id),
                role: PlatformRole::Admin,
                added_at: noon(),
                added_by: None,
            }
        );
        let later = noon() + Duration::hours(1);
        let reviewer = repo
            .grant(&email("Ann@x.io"), PlatformRole::Reviewer, Some(email("root@x.io")), GrantBinding::ProvenAccount, later, &audit())
            .await
            .unwrap();
        assert_eq!((reviewer.added_by.clone(), reviewer.user_id), (Some(email("root@x.io")), None));
        assert_eq!(repo.list().await.unwrap(), vec![reviewer, root]);
        assert_eq!(repo.role_of(root_id).await.unwrap(), Some(PlatformRole::Admin));
        assert_eq!(repo.role_of(UserId::new()).await.unwrap(), None);
    }

    async fn changing_a_role_keeps_when_and_by_whom_it_was_added(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        seeded(db, &repo, &[("root@x.io", PlatformRole::Admin)]).await;
        let ann = proven_account(db, "ann@x.io").await;
        repo.grant(&email("ann@x.io"), PlatformRole::Reviewer, Some(email("root@x.io")), GrantBinding::ProvenAccount, noon(), &audit())
            .await
            .unwrap();
        let promoted = repo
            .grant(&email("ann@x.io"), PlatformRole::Admin, Some(email("other@x.io")), GrantBinding::ProvenAccount, noon() + Duration::days(1), &audit())
            .await
            .unwrap();
        let expected = PlatformAdmin {
            email: email("ann@x.io"),
            user_id: Some(ann),
            role: PlatformRole::Admin,
            added_at: noon(),
            added_by: Some(email("root@x.io")),
        };
        assert_eq!(promoted, expected);
        assert!(repo.list().await.unwrap().contains(&expected));
        assert_eq!(repo.role_of(ann).await.unwrap(), Some(PlatformRole::Admin));
        repo.grant(&email("root@x.io"), PlatformRole::Reviewer, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        let root = repo.list().await.unwrap().into_iter().find(|a| a.email == email("root@x.io")).unwrap();
        assert_eq!(root.role, PlatformRole::Reviewer);
    }

    async fn the_last_admin_cannot_be_demoted(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        seeded(db, &repo, &[("root@x.io", PlatformRole::Admin), ("rev@x.io", PlatformRole::Reviewer)]).await;
        // A pending admin cannot act: it does not count.
        repo.grant(&email("later@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        let result = repo
            .grant(&email("root@x.io"), PlatformRole::Reviewer, None, GrantBinding::ProvenAccount, noon(), &audit())
            .await;
        assert!(matches!(result, Err(RepoError::Conflict(_))), "{result:?}");
        let admins = repo.list().await.unwrap();
        assert_eq!(admins.iter().find(|a| a.email == email("root@x.io")).unwrap().role, PlatformRole::Admin);
        repo.grant(&email("root@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
    }

    async fn the_last_admin_cannot_be_removed_and_others_can(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        seeded(db, &repo, &[("root@x.io", PlatformRole::Admin), ("rev@x.io", PlatformRole::Reviewer)]).await;
        repo.grant(&email("later@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        let result = repo.remove(&email("root@x.io"), &audit()).await;
        assert!(matches!(result, Err(RepoError::Conflict(_))), "{result:?}");
        repo.remove(&email("rev@x.io"), &audit()).await.unwrap();
        repo.remove(&email("later@x.io"), &audit()).await.unwrap();
        let missing = repo.remove(&email("rev@x.io"), &audit()).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
        seeded(db, &repo, &[("second@x.io", PlatformRole::Admin)]).await;
        repo.remove(&email("root@x.io"), &audit()).await.unwrap();
        let emails: Vec<String> = repo.list().await.unwrap().iter().map(|a| a.email.as_str().to_owned()).collect();
        assert_eq!(emails, vec!["second@x.io"]);
    }

    async fn concurrent_removal_and_demotion_of_the_two_admins_leave_one(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        for round in 0..4 {
            let a = format!("a{round}@x.io");
            let b = format!("b{round}@x.io");
            seeded(db, &repo, &[(a.as_str(), PlatformRole::Admin), (b.as_str(), PlatformRole::Admin)]).await;
            // Only a and b are admins when the race starts.
            for entry in repo.list().await.unwrap() {
                if entry.email.as_str() != a && entry.email.as_str() != b {
                    repo.remove(&entry.email, &audit()).await.unwrap();
                }
            }
            let remove = {
                let (repo, a) = (repo.clone(), a.clone());
                tokio::spawn(async move { repo.remove(&email(&a), &audit()).await })
            };
            let demote = {
                let (repo, b) = (repo.clone(), b.clone());
                tokio::spawn(async move {
                    repo.grant(&email(&b), PlatformRole::Reviewer, None, GrantBinding::ProvenAccount, noon(), &audit()).await.map(drop)
                })
            };
            let mut refused = 0;
            for result in [remove.await.unwrap(), demote.await.unwrap()] {
                match result {
                    Ok(()) => {}
                    Err(RepoError::Conflict(_)) => refused += 1,
                    Err(other) => panic!("unexpected {other:?}"),
                }
            }
            assert_eq!(refused, 1, "round {round}");
            let admins = repo.list().await.unwrap();
            assert_eq!(admins.iter().filter(|x| x.role == PlatformRole::Admin).count(), 1, "round {round}");
        }
    }

    async fn a_grant_binds_only_to_a_proven_account_unless_the_operator_vouches(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        // Confirmed at sign-up without a mailer: not proven.
        let squatter = fixtures::account(db, "boss@x.io");
        let pending = repo
            .grant(&email("boss@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit())
            .await
            .unwrap();
        assert_eq!(pending.user_id, None);
        assert_eq!(repo.role_of(squatter).await.unwrap(), None);
        // The operator vouches for the account that has the address: the pending role binds to it.
        let bound = repo
            .grant(&email("boss@x.io"), PlatformRole::Admin, None, GrantBinding::AnyAccount, noon(), &audit())
            .await
            .unwrap();
        assert_eq!(bound.user_id, Some(squatter));
        assert_eq!(repo.role_of(squatter).await.unwrap(), Some(PlatformRole::Admin));
        assert_eq!(repo.list().await.unwrap().len(), 1);
        // Without any account the role waits, whoever grants it.
        let nobody = repo
            .grant(&email("ghost@x.io"), PlatformRole::Reviewer, None, GrantBinding::AnyAccount, noon(), &audit())
            .await
            .unwrap();
        assert_eq!(nobody.user_id, None);
    }

    async fn a_pending_role_binds_to_the_first_account_that_proves_the_address(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        let accounts = DieselAccountRepository::new(db.clone());
        let unproven = fixtures::account(db, "boss@x.io");
        let other = fixtures::account(db, "other@x.io");
        repo.grant(&email("boss@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        // Proving another address binds nothing.
        accounts.prove_email(other, noon()).await.unwrap();
        assert_eq!(repo.role_of(other).await.unwrap(), None);
        accounts.prove_email(unproven, noon()).await.unwrap();
        assert_eq!(repo.role_of(unproven).await.unwrap(), Some(PlatformRole::Admin));
        let listed = repo.list().await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!((listed[0].email.as_str(), listed[0].user_id), ("boss@x.io", Some(unproven)));
    }

    async fn an_account_created_proven_takes_the_role_waiting_for_its_address(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        repo.grant(&email("new@x.io"), PlatformRole::Reviewer, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        repo.grant(&email("plain@x.io"), PlatformRole::Reviewer, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        let proven = proven_account(db, "new@x.io").await;
        assert_eq!(repo.role_of(proven).await.unwrap(), Some(PlatformRole::Reviewer));
        // Created unproven (a sign-up without a mailer): the role keeps waiting.
        let accounts = DieselAccountRepository::new(db.clone());
        let mut unproven = Account::new(email("plain@x.io"), noon());
        unproven.email_confirmed_at = Some(noon());
        accounts.create(&unproven).await.unwrap();
        assert_eq!(repo.role_of(unproven.id).await.unwrap(), None);
    }

    async fn a_bound_role_stays_with_its_account_when_the_address_changes(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        let accounts = DieselAccountRepository::new(db.clone());
        seeded(db, &repo, &[("root@x.io", PlatformRole::Admin)]).await;
        let first = proven_account(db, "boss@x.io").await;
        repo.grant(&email("boss@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        accounts.change_email(first, &email("moved@x.io"), Some(noon()), noon()).await.unwrap();
        // A later account with the old address, even proven, does not inherit the role.
        let second = proven_account(db, "boss@x.io").await;
        assert_eq!(repo.role_of(first).await.unwrap(), Some(PlatformRole::Admin));
        assert_eq!(repo.role_of(second).await.unwrap(), None);
        let listed: Vec<(String, Option<UserId>)> =
            repo.list().await.unwrap().into_iter().map(|a| (a.email.as_str().to_owned(), a.user_id)).collect();
        assert!(listed.contains(&("moved@x.io".to_owned(), Some(first))), "{listed:?}");
        // The old address has no role now: granting it makes a new one, for the account that has it.
        let again = repo
            .grant(&email("boss@x.io"), PlatformRole::Reviewer, None, GrantBinding::ProvenAccount, noon(), &audit())
            .await
            .unwrap();
        assert_eq!(again.user_id, Some(second));
        assert_eq!(repo.role_of(first).await.unwrap(), Some(PlatformRole::Admin));
    }

    async fn an_account_with_a_role_that_proves_an_address_with_a_waiting_role_uses_it_up(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        let accounts = DieselAccountRepository::new(db.clone());
        let user = fixtures::account(db, "old@x.io");
        repo.grant(&email("old@x.io"), PlatformRole::Reviewer, None, GrantBinding::AnyAccount, noon(), &audit()).await.unwrap();
        repo.grant(&email("new@x.io"), PlatformRole::Admin, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        accounts.change_email(user, &email("new@x.io"), Some(noon()), noon()).await.unwrap();
        assert_eq!(repo.role_of(user).await.unwrap(), Some(PlatformRole::Admin));
        let listed = repo.list().await.unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0].user_id, Some(user));
    }

    async fn a_configured_address_is_seeded_once_even_after_its_role_is_revoked(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        seeded(db, &repo, &[("root@x.io", PlatformRole::Admin)]).await;
        let added = repo.seed(&email("boss@x.io"), noon(), &audit()).await.unwrap().unwrap();
        assert_eq!((added.role, added.user_id, added.added_by), (PlatformRole::Admin, None, None));
        assert_eq!(repo.seed(&email("boss@x.io"), noon(), &audit()).await.unwrap(), None);
        repo.remove(&email("boss@x.io"), &audit()).await.unwrap();
        assert_eq!(repo.seed(&email("boss@x.io"), noon() + Duration::days(1), &audit()).await.unwrap(), None);
        assert!(repo.list().await.unwrap().iter().all(|a| a.email != email("boss@x.io")));
        // An address with a role already keeps it, and is recorded as seeded.
        assert_eq!(repo.seed(&email("root@x.io"), noon(), &audit()).await.unwrap(), None);
        repo.grant(&email("rev@x.io"), PlatformRole::Reviewer, None, GrantBinding::ProvenAccount, noon(), &audit()).await.unwrap();
        assert_eq!(repo.seed(&email("rev@x.io"), noon(), &audit()).await.unwrap(), None);
        repo.remove(&email("rev@x.io"), &audit()).await.unwrap();
        assert_eq!(repo.seed(&email("rev@x.io"), noon(), &audit()).await.unwrap(), None);
    }

    async fn a_seeded_address_binds_to_a_proven_account_only(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        let proven = proven_account(db, "owner@x.io").await;
        let unproven = fixtures::account(db, "squat@x.io");
        assert_eq!(repo.seed(&email("owner@x.io"), noon(), &audit()).await.unwrap().unwrap().user_id, Some(proven));
        assert_eq!(repo.seed(&email("squat@x.io"), noon(), &audit()).await.unwrap().unwrap().user_id, None);
        assert_eq!(repo.role_of(unproven).await.unwrap(), None);
    }
}
