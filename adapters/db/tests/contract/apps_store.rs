//! `AppRepository`'s store transitions (compare-and-set with the event and the e-mails), the reviewers'
//! reads, and `OrgProfileLookup`.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{
    self,
    app_fixtures::{self as fx, at, event, outbox, package, rows_of, sample_app},
};
use adapter_db::repos::{DieselAppRepository, DieselOrgProfileLookup, DieselReviewRepository};
use domain::apps::ports::{AppRepository, OrgContact, OrgProfileLookup, ReviewStamp, StatusChange};
use domain::apps::status::StatusCounts;
use domain::apps::{App, AppStoreStatus};
use domain::common::{OrgId, RepoError};
use domain::mail::{EmailKind, OutgoingEmail};
use domain::review::{ReviewEventKind, ReviewRepository};

const PKG: &str = "com.example.notes";

fn mail(kind: EmailKind, to: &str) -> OutgoingEmail {
    OutgoingEmail {
        kind,
        to: fixtures::email(to),
        subject: "Your app".into(),
        text: "Body".into(),
        link: Some("https://portal.example.com/apps".into()),
    }
}

fn approval(org: OrgId, ms: i64) -> StatusChange {
    StatusChange {
        to: AppStoreStatus::Published,
        review: Some(ReviewStamp {
            notes: Some("Looks good".into()),
            reviewed_by: "reviewer@example.com".into(),
            reviewed_at: at(ms),
        }),
        at: at(ms),
        event: event(org, PKG, ReviewEventKind::Approved, ms).with_notes(Some("Looks good".into())),
        emails: vec![mail(EmailKind::AppApproved, "contact@acme.example.com")],
        audit: vec![fixtures::audit_in(
            Some(org),
            domain::audit::AuditAction::ReviewApproved,
            at(ms),
        )],
    }
}

fn rejection(org: OrgId, ms: i64) -> StatusChange {
    StatusChange {
        to: AppStoreStatus::Rejected,
        review: Some(ReviewStamp {
            notes: Some("Blurry logo".into()),
            reviewed_by: "r2@example.com".into(),
            reviewed_at: at(ms),
        }),
        at: at(ms),
        event: event(org, PKG, ReviewEventKind::Rejected, ms).with_notes(Some("Blurry logo".into())),
        emails: vec![mail(EmailKind::AppRejected, "contact@acme.example.com")],
        audit: vec![fixtures::audit_in(
            Some(org),
            domain::audit::AuditAction::ReviewRejected,
            at(ms),
        )],
    }
}

fn submission(org: OrgId, ms: i64) -> StatusChange {
    StatusChange {
        to: AppStoreStatus::Submitted,
        review: None,
        at: at(ms),
        event: event(org, PKG, ReviewEventKind::Submitted, ms),
        emails: Vec::new(),
        audit: Vec::new(),
    }
}

async fn stored_app(db: &adapter_db::Db, org: OrgId, status: AppStoreStatus) -> App {
    let mut app = sample_app(org, PKG);
    app.app_store_status = status;
    DieselAppRepository::new(db.clone())
        .insert(&app, "hash-1", &fixtures::audit())
        .await
        .unwrap();
    app
}

contract! {
    async fn an_approval_writes_status_review_fields_event_and_email_together(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = stored_app(db, org, AppStoreStatus::Submitted).await;
        let change = approval(org, 100);
        let after = repo.admin_transition(&package(PKG), AppStoreStatus::Submitted, change.clone()).await.unwrap();
        let mut expected = app;
        expected.app_store_status = AppStoreStatus::Published;
        expected.review_notes = Some("Looks good".into());
        expected.reviewed_by = Some("reviewer@example.com".into());
        expected.reviewed_at = Some(at(100));
        expected.updated_at = at(100);
        assert_eq!(after, expected);
        assert_eq!(repo.get(org, &package(PKG)).await.unwrap(), Some(expected));
        let history = DieselReviewRepository::new(db.clone()).admin_history(&package(PKG)).await.unwrap();
        assert_eq!(history, vec![change.event]);
        assert_eq!(outbox(db), vec![("app_approved".to_owned(), "contact@acme.example.com".to_owned())]);
    }

    async fn an_org_transition_without_a_stamp_keeps_the_review_fields(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let mut app = sample_app(org, PKG);
        app.app_store_status = AppStoreStatus::Rejected;
        app.review_notes = Some("Blurry logo".into());
        app.reviewed_by = Some("r@example.com".into());
        app.reviewed_at = Some(at(5));
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        let after = repo.transition(org, &package(PKG), AppStoreStatus::Rejected, submission(org, 50)).await.unwrap();
        let mut expected = app;
        expected.app_store_status = AppStoreStatus::Submitted;
        expected.updated_at = at(50);
        assert_eq!(after, expected);
        assert_eq!(rows_of(db, "review_events", PKG), 1);
        assert!(outbox(db).is_empty());
    }

    async fn a_stamp_without_notes_clears_the_notes(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let mut app = sample_app(org, PKG);
        app.app_store_status = AppStoreStatus::Submitted;
        app.review_notes = Some("old".into());
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        let mut change = approval(org, 70);
        change.review = Some(ReviewStamp { notes: None, reviewed_by: "rev@example.com".into(), reviewed_at: at(60) });
        let after = repo.admin_transition(&package(PKG), AppStoreStatus::Submitted, change).await.unwrap();
        assert_eq!(after.review_notes, None);
        assert_eq!(after.reviewed_by.as_deref(), Some("rev@example.com"));
        assert_eq!(after.reviewed_at, Some(at(60)));
        assert_eq!(after.updated_at, at(70));
    }

    async fn a_transition_from_the_wrong_status_is_a_conflict_and_writes_nothing(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = stored_app(db, org, AppStoreStatus::Development).await;
        let err = repo.admin_transition(&package(PKG), AppStoreStatus::Submitted, approval(org, 1)).await.unwrap_err();
        assert!(matches!(err, RepoError::Conflict(_)), "{err:?}");
        let err = repo.transition(org, &package(PKG), AppStoreStatus::Rejected, submission(org, 1)).await.unwrap_err();
        assert!(matches!(err, RepoError::Conflict(_)), "{err:?}");
        assert_eq!(repo.get(org, &package(PKG)).await.unwrap(), Some(app));
        assert_eq!(rows_of(db, "review_events", PKG), 0);
        assert!(outbox(db).is_empty());
    }

    async fn a_transition_of_another_orgs_or_a_missing_app_is_not_found(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let app = stored_app(db, acme, AppStoreStatus::Development).await;
        let err = repo.transition(other, &package(PKG), AppStoreStatus::Development, submission(other, 1)).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo
            .admin_transition(&package("com.example.none"), AppStoreStatus::Submitted, approval(acme, 1))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.get(acme, &package(PKG)).await.unwrap(), Some(app));
        assert_eq!(rows_of(db, "review_events", PKG), 0);
        assert!(outbox(db).is_empty());
    }

    async fn of_concurrent_approvals_exactly_one_wins(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        stored_app(db, org, AppStoreStatus::Submitted).await;
        let tasks: Vec<_> = (0..6)
            .map(|i| {
                let repo = repo.clone();
                tokio::spawn(async move {
                    repo.admin_transition(&package(PKG), AppStoreStatus::Submitted, approval(org, 100 + i)).await
                })
            })
            .collect();
        let mut wins = 0;
        for task in tasks {
            match task.await.expect("task") {
                Ok(app) => {
                    wins += 1;
                    assert_eq!(app.app_store_status, AppStoreStatus::Published);
                }
                Err(RepoError::Conflict(_)) => {}
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(wins, 1);
        assert_eq!(rows_of(db, "review_events", PKG), 1);
        assert_eq!(outbox(db).len(), 1);
    }

    async fn of_a_concurrent_approval_and_rejection_exactly_one_wins(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        stored_app(db, org, AppStoreStatus::Submitted).await;
        let tasks: Vec<_> = (0..6)
            .map(|i| {
                let repo = repo.clone();
                tokio::spawn(async move {
                    let change = if i % 2 == 0 { approval(org, 10 + i) } else { rejection(org, 10 + i) };
                    repo.transition(org, &package(PKG), AppStoreStatus::Submitted, change).await
                })
            })
            .collect();
        let mut winners = Vec::new();
        for task in tasks {
            match task.await.expect("task") {
                Ok(app) => winners.push(app.app_store_status),
                Err(RepoError::Conflict(_)) => {}
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(winners.len(), 1, "{winners:?}");
        let stored = repo.get(org, &package(PKG)).await.unwrap().expect("app");
        assert_eq!(stored.app_store_status, winners[0]);
        let history = DieselReviewRepository::new(db.clone()).admin_history(&package(PKG)).await.unwrap();
        assert_eq!(history.len(), 1);
        let expected_kind = if winners[0] == AppStoreStatus::Published { "app_approved" } else { "app_rejected" };
        assert_eq!(outbox(db).iter().map(|(kind, _)| kind.as_str()).collect::<Vec<_>>(), [expected_kind]);
    }

    async fn the_review_queue_lists_one_status_oldest_update_first(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        for (name, org, status, ms) in [
            ("com.q.late", acme, AppStoreStatus::Submitted, 300),
            ("com.q.early", other, AppStoreStatus::Submitted, 100),
            ("com.q.middle", acme, AppStoreStatus::Submitted, 200),
            ("com.q.published", acme, AppStoreStatus::Published, 50),
        ] {
            let mut app = sample_app(org, name);
            app.app_store_status = status;
            app.updated_at = at(ms);
            repo.insert(&app, name, &fixtures::audit()).await.unwrap();
        }
        let queue: Vec<_> = repo
            .admin_list_by_status(AppStoreStatus::Submitted)
            .await
            .unwrap()
            .into_iter()
            .map(|a| a.package_name.to_string())
            .collect();
        assert_eq!(queue, ["com.q.early", "com.q.middle", "com.q.late"]);
        let published = repo.admin_list_by_status(AppStoreStatus::Published).await.unwrap();
        assert_eq!(published.len(), 1);
        assert!(repo.admin_list_by_status(AppStoreStatus::Rejected).await.unwrap().is_empty());
    }

    async fn admin_counts_count_every_status_across_orgs(db) {
        let repo = DieselAppRepository::new(db.clone());
        assert_eq!(repo.admin_counts().await.unwrap(), StatusCounts::default());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let statuses = [
            (acme, AppStoreStatus::Development),
            (other, AppStoreStatus::Development),
            (acme, AppStoreStatus::Submitted),
            (other, AppStoreStatus::Published),
            (acme, AppStoreStatus::Published),
            (acme, AppStoreStatus::Published),
        ];
        for (i, (org, status)) in statuses.into_iter().enumerate() {
            fx::app_row(db, org, &format!("com.count.app{i}"), status);
        }
        let counts = repo.admin_counts().await.unwrap();
        assert_eq!(counts, StatusCounts { development: 2, submitted: 1, published: 3, rejected: 0 });
        assert_eq!(counts.total(), 6);
    }

    async fn the_reviewer_reads_any_app_and_nothing_else(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let app = stored_app(db, acme, AppStoreStatus::Submitted).await;
        fx::app_row(db, other, "com.other.app", AppStoreStatus::Development);
        assert_eq!(repo.admin_get(&package(PKG)).await.unwrap(), Some(app));
        assert_eq!(repo.admin_get(&package("com.other.app")).await.unwrap().map(|a| a.org_id), Some(other));
        assert_eq!(repo.admin_get(&package("com.example.none")).await.unwrap(), None);
    }

    async fn the_org_profile_answers_name_and_contact(db) {
        let lookup = DieselOrgProfileLookup::new(db.clone());
        let acme = fixtures::organization(db, "Acme");
        assert_eq!(lookup.profile(acme).await.unwrap(), Some(OrgContact { name: "Acme".into(), contact_email: None, logo: None }));
        fx::org_contact(db, acme, Some("Contact@Acme.example.com"));
        let profile = lookup.profile(acme).await.unwrap().expect("profile");
        assert_eq!(profile.contact_email, Some(fixtures::email("contact@acme.example.com")));
        assert!(profile.is_complete());
        fx::org_contact(db, acme, Some("  "));
        assert_eq!(lookup.profile(acme).await.unwrap().expect("profile").contact_email, None);
        assert_eq!(lookup.profile(OrgId::new()).await.unwrap(), None);
        {
            use adapter_db::schema::organizations;
            use diesel::prelude::*;
            let mut conn = db.connection().unwrap();
            diesel::update(organizations::table.find(acme.to_string()))
                .set(organizations::logo.eq("/api/images/logo-id"))
                .execute(&mut *conn)
                .unwrap();
        }
        let with_logo = lookup.profile(acme).await.unwrap().expect("profile");
        assert_eq!(with_logo.logo.as_deref(), Some("/api/images/logo-id"));
    }
}
