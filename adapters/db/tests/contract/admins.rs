//! Platform admins and reviewers: the list, role changes, and the guard that keeps one admin.

use crate::fixtures::email;
use adapter_db::repos::DieselPlatformAdminRepository;
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::{PlatformRole, RepoError};
use domain::identity::models::PlatformAdmin;
use domain::identity::ports::PlatformAdminRepository;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

async fn seeded(repo: &DieselPlatformAdminRepository, entries: &[(&str, PlatformRole)]) {
    for (address, role) in entries {
        repo.upsert(&email(address), *role, None, noon()).await.unwrap();
    }
}

contract! {
    async fn added_entries_are_listed_by_email_and_read_back(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        let root = repo.upsert(&email("root@x.io"), PlatformRole::Admin, None, noon()).await.unwrap();
        assert_eq!(
            root,
            PlatformAdmin { email: email("root@x.io"), role: PlatformRole::Admin, added_at: noon(), added_by: None }
        );
        let later = noon() + Duration::hours(1);
        let reviewer = repo
            .upsert(&email("Ann@x.io"), PlatformRole::Reviewer, Some(email("root@x.io")), later)
            .await
            .unwrap();
        assert_eq!(reviewer.added_by, Some(email("root@x.io")));
        assert_eq!(repo.list().await.unwrap(), vec![reviewer.clone(), root.clone()]);
        assert_eq!(repo.get(&email("ann@x.io")).await.unwrap(), Some(reviewer));
        assert_eq!(repo.get(&email("nobody@x.io")).await.unwrap(), None);
    }

    async fn changing_a_role_keeps_when_and_by_whom_it_was_added(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        seeded(&repo, &[("root@x.io", PlatformRole::Admin)]).await;
        repo.upsert(&email("ann@x.io"), PlatformRole::Reviewer, Some(email("root@x.io")), noon())
            .await
            .unwrap();
        let promoted = repo
            .upsert(&email("ann@x.io"), PlatformRole::Admin, Some(email("other@x.io")), noon() + Duration::days(1))
            .await
            .unwrap();
        let expected = PlatformAdmin {
            email: email("ann@x.io"),
            role: PlatformRole::Admin,
            added_at: noon(),
            added_by: Some(email("root@x.io")),
        };
        assert_eq!(promoted, expected);
        assert_eq!(repo.get(&email("ann@x.io")).await.unwrap(), Some(expected));
        repo.upsert(&email("root@x.io"), PlatformRole::Reviewer, None, noon()).await.unwrap();
        assert_eq!(repo.get(&email("root@x.io")).await.unwrap().unwrap().role, PlatformRole::Reviewer);
    }

    async fn the_last_admin_cannot_be_demoted(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        seeded(&repo, &[("root@x.io", PlatformRole::Admin), ("rev@x.io", PlatformRole::Reviewer)]).await;
        let result = repo.upsert(&email("root@x.io"), PlatformRole::Reviewer, None, noon()).await;
        assert!(matches!(result, Err(RepoError::Conflict(_))), "{result:?}");
        assert_eq!(repo.get(&email("root@x.io")).await.unwrap().unwrap().role, PlatformRole::Admin);
        repo.upsert(&email("root@x.io"), PlatformRole::Admin, None, noon()).await.unwrap();
    }

    async fn the_last_admin_cannot_be_removed_and_others_can(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        seeded(&repo, &[("root@x.io", PlatformRole::Admin), ("rev@x.io", PlatformRole::Reviewer)]).await;
        let result = repo.remove(&email("root@x.io")).await;
        assert!(matches!(result, Err(RepoError::Conflict(_))), "{result:?}");
        repo.remove(&email("rev@x.io")).await.unwrap();
        assert_eq!(repo.get(&email("rev@x.io")).await.unwrap(), None);
        let missing = repo.remove(&email("rev@x.io")).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
        seeded(&repo, &[("second@x.io", PlatformRole::Admin)]).await;
        repo.remove(&email("root@x.io")).await.unwrap();
        let emails: Vec<String> = repo.list().await.unwrap().iter().map(|a| a.email.as_str().to_owned()).collect();
        assert_eq!(emails, vec!["second@x.io"]);
    }

    async fn concurrent_removal_and_demotion_of_the_two_admins_leave_one(db) {
        let repo = DieselPlatformAdminRepository::new(db.clone());
        for round in 0..4 {
            let a = format!("a{round}@x.io");
            let b = format!("b{round}@x.io");
            seeded(&repo, &[(a.as_str(), PlatformRole::Admin), (b.as_str(), PlatformRole::Admin)]).await;
            // Only a and b are admins when the race starts.
            for entry in repo.list().await.unwrap() {
                if entry.email.as_str() != a && entry.email.as_str() != b {
                    repo.remove(&entry.email).await.unwrap();
                }
            }
            let remove = {
                let (repo, a) = (repo.clone(), a.clone());
                tokio::spawn(async move { repo.remove(&email(&a)).await })
            };
            let demote = {
                let (repo, b) = (repo.clone(), b.clone());
                tokio::spawn(async move {
                    repo.upsert(&email(&b), PlatformRole::Reviewer, None, noon()).await.map(drop)
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
}
