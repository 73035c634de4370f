//! `ReviewRepository::decide` (compare-and-set on the status and on the revision the reviewer saw, with the
//! event and the e-mails) and `StoreStatusMaintenance` (stored statuses as stored, and their repair).

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{
    self,
    app_fixtures::{self as fx, at, event, outbox, package, rows_of, sample_app},
};
use adapter_db::repos::{DieselAppRepository, DieselReviewRepository};
use diesel::prelude::*;
use domain::apps::ports::{AppRepository, ReviewStamp, StatusChange};
use domain::apps::{App, AppStoreStatus};
use domain::common::{OrgId, RepoError};
use domain::mail::{EmailKind, OutgoingEmail};
use domain::review::platform::StoreStatusMaintenance;
use domain::review::ports::{REVISION_MOVED, STATUS_MOVED};
use domain::review::{ReviewEventKind, ReviewRepository};
use std::collections::BTreeMap;

const PKG: &str = "com.example.notes";

fn decision(org: OrgId, to: AppStoreStatus, ms: i64) -> StatusChange {
    let (kind, email) = if to == AppStoreStatus::Published {
        (ReviewEventKind::Approved, EmailKind::AppApproved)
    } else {
        (ReviewEventKind::Rejected, EmailKind::AppRejected)
    };
    StatusChange {
        to,
        review: Some(ReviewStamp {
            notes: Some("Notes".into()),
            reviewed_by: "reviewer@example.com".into(),
            reviewed_at: at(ms),
        }),
        at: at(ms),
        event: event(org, PKG, kind, ms).with_notes(Some("Notes".into())),
        emails: vec![OutgoingEmail {
            kind: email,
            to: fixtures::email("contact@acme.example.com"),
            subject: "Your app".into(),
            text: "Body".into(),
            link: None,
        }],
        audit: vec![fixtures::audit_in(
            Some(org),
            domain::audit::AuditAction::ReviewApproved,
            at(ms),
        )],
    }
}

async fn submitted_app(db: &adapter_db::Db, org: OrgId) -> App {
    let mut app = sample_app(org, PKG);
    app.app_store_status = AppStoreStatus::Submitted;
    DieselAppRepository::new(db.clone())
        .insert(&app, "hash-1", &fixtures::audit())
        .await
        .unwrap();
    app
}

fn set_status_text(db: &adapter_db::Db, name: &str, status: &str) {
    use adapter_db::schema::apps;
    let mut conn = db.connection().unwrap();
    diesel::update(apps::table.filter(apps::package_name.eq(name)))
        .set(apps::app_store_status.eq(status))
        .execute(&mut *conn)
        .unwrap();
}

contract! {
    async fn a_decision_on_the_revision_seen_writes_everything_together(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = submitted_app(db, org).await;
        let change = decision(org, AppStoreStatus::Published, 100);
        let after = reviews
            .decide(&package(PKG), AppStoreStatus::Submitted, app.updated_at, change.clone())
            .await
            .unwrap();
        let mut expected = app;
        expected.app_store_status = AppStoreStatus::Published;
        expected.review_notes = Some("Notes".into());
        expected.reviewed_by = Some("reviewer@example.com".into());
        expected.reviewed_at = Some(at(100));
        expected.updated_at = at(100);
        assert_eq!(after, expected);
        assert_eq!(reviews.admin_history(&package(PKG)).await.unwrap(), vec![change.event]);
        assert_eq!(outbox(db), vec![("app_approved".to_owned(), "contact@acme.example.com".to_owned())]);
    }

    async fn a_decision_on_another_revision_writes_nothing(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = submitted_app(db, org).await;
        let err = reviews
            .decide(&package(PKG), AppStoreStatus::Submitted, at(-1), decision(org, AppStoreStatus::Rejected, 5))
            .await
            .unwrap_err();
        assert!(matches!(&err, RepoError::Conflict(what) if what == REVISION_MOVED), "{err:?}");
        assert_eq!(DieselAppRepository::new(db.clone()).admin_get(&package(PKG)).await.unwrap(), Some(app));
        assert_eq!(rows_of(db, "review_events", PKG), 0);
        assert!(outbox(db).is_empty());
    }

    async fn a_decision_on_an_app_no_longer_submitted_or_missing_is_refused(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        fx::app_row(db, org, PKG, AppStoreStatus::Published);
        let err = reviews
            .decide(&package(PKG), AppStoreStatus::Submitted, at(0), decision(org, AppStoreStatus::Published, 5))
            .await
            .unwrap_err();
        assert!(matches!(&err, RepoError::Conflict(what) if what == STATUS_MOVED), "{err:?}");
        let err = reviews
            .decide(&package("com.example.none"), AppStoreStatus::Submitted, at(0), decision(org, AppStoreStatus::Published, 5))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert!(outbox(db).is_empty());
    }

    async fn of_concurrent_approvals_and_rejections_on_one_revision_exactly_one_wins(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = submitted_app(db, org).await;
        let tasks: Vec<_> = (0..6)
            .map(|i| {
                let reviews = reviews.clone();
                let seen = app.updated_at;
                tokio::spawn(async move {
                    let to = if i % 2 == 0 { AppStoreStatus::Published } else { AppStoreStatus::Rejected };
                    reviews.decide(&package(PKG), AppStoreStatus::Submitted, seen, decision(org, to, 10 + i)).await
                })
            })
            .collect();
        let mut wins = 0;
        for task in tasks {
            match task.await.expect("task") {
                Ok(_) => wins += 1,
                Err(RepoError::Conflict(_)) => {}
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(wins, 1);
        assert_eq!(rows_of(db, "review_events", PKG), 1);
        assert_eq!(outbox(db).len(), 1);
    }

    async fn stored_statuses_are_counted_as_stored_and_unknown_ones_repaired_once(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        fx::app_row(db, org, "com.example.a", AppStoreStatus::Submitted);
        fx::app_row(db, org, "com.example.b", AppStoreStatus::Development);
        fx::app_row(db, org, "com.example.c", AppStoreStatus::Development);
        fx::app_row(db, org, "com.example.d", AppStoreStatus::Development);
        set_status_text(db, "com.example.c", "development");
        set_status_text(db, "com.example.d", "ARCHIVED");
        let counts = reviews.stored_status_counts().await.unwrap();
        let expected: BTreeMap<String, u64> = [("SUBMITTED", 1), ("DEVELOPMENT", 1), ("development", 1), ("ARCHIVED", 1)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        assert_eq!(counts, expected);
        let fixed = reviews.normalise_store_statuses(at(50)).await.unwrap();
        assert_eq!(fixed, vec![package("com.example.c"), package("com.example.d")]);
        let apps = DieselAppRepository::new(db.clone());
        let repaired = apps.admin_get(&package("com.example.d")).await.unwrap().unwrap();
        assert_eq!(repaired.app_store_status, AppStoreStatus::Development);
        assert_eq!(repaired.updated_at, at(50));
        let untouched = apps.admin_get(&package("com.example.a")).await.unwrap().unwrap();
        assert_eq!(untouched.updated_at, at(0));
        assert_eq!(reviews.stored_status_counts().await.unwrap().get("DEVELOPMENT"), Some(&3));
        assert!(reviews.normalise_store_statuses(at(60)).await.unwrap().is_empty());
    }
}
