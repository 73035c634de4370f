//! `ReviewRepository`: the review history, org-scoped for developers and unscoped for reviewers.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{
    self,
    app_fixtures::{self as fx, at, event, package},
};
use adapter_db::repos::{DieselAppRepository, DieselReviewRepository};
use domain::apps::AppStoreStatus;
use domain::apps::ports::AppRepository;
use domain::common::OrgId;
use domain::review::{ReviewEventKind, ReviewRepository};
use serde_json::json;

const PKG: &str = "com.example.notes";

contract! {
    async fn the_history_is_oldest_first_with_notes_and_detail(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        fx::app_row(db, org, PKG, AppStoreStatus::Development);
        let late = fx::review_event(db, org, PKG, "approved", 300);
        let early = fx::review_event(db, org, PKG, "submitted", 100);
        let middle = fx::review_event(db, org, PKG, "rejected", 200);
        let history = reviews.history(org, &package(PKG)).await.unwrap().expect("history");
        let ids: Vec<_> = history.iter().map(|e| e.id.to_string()).collect();
        assert_eq!(ids, [early, middle, late]);
        let kinds: Vec<_> = history.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [ReviewEventKind::Submitted, ReviewEventKind::Rejected, ReviewEventKind::Approved]);
        assert_eq!(history[0].at, at(100));
        assert_eq!(reviews.admin_history(&package(PKG)).await.unwrap(), history);
    }

    async fn an_event_written_with_a_change_reads_back_equal(db) {
        let apps = DieselAppRepository::new(db.clone());
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let mut app = fx::sample_app(org, PKG);
        app.app_store_status = AppStoreStatus::Published;
        apps.insert(&app, "hash", &fixtures::audit()).await.unwrap();
        let edit = event(org, PKG, ReviewEventKind::EditedAfterApproval, 10)
            .with_notes(Some("ünïcode notes".into()))
            .with_detail(json!({"changedFields": ["name", "settings"], "nested": {"n": 1.5, "ok": true}}));
        apps.update(org, &app, AppStoreStatus::Published, vec![edit.clone()], &fixtures::audit()).await.unwrap();
        assert_eq!(reviews.history(org, &package(PKG)).await.unwrap(), Some(vec![edit]));
    }

    async fn an_app_without_events_has_an_empty_history(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        fx::app_row(db, org, PKG, AppStoreStatus::Development);
        assert_eq!(reviews.history(org, &package(PKG)).await.unwrap(), Some(Vec::new()));
        assert!(reviews.admin_history(&package(PKG)).await.unwrap().is_empty());
    }

    async fn another_org_sees_no_history_of_the_app(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        fx::app_row(db, acme, PKG, AppStoreStatus::Submitted);
        fx::review_event(db, acme, PKG, "submitted", 1);
        assert_eq!(reviews.history(other, &package(PKG)).await.unwrap(), None);
        assert_eq!(reviews.history(OrgId::new(), &package(PKG)).await.unwrap(), None);
        assert_eq!(reviews.history(acme, &package(PKG)).await.unwrap().map(|h| h.len()), Some(1));
    }

    async fn an_unknown_app_has_no_history(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        assert_eq!(reviews.history(org, &package("com.example.none")).await.unwrap(), None);
        assert!(reviews.admin_history(&package("com.example.none")).await.unwrap().is_empty());
    }

    async fn histories_of_different_apps_do_not_mix(db) {
        let reviews = DieselReviewRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        fx::app_row(db, org, PKG, AppStoreStatus::Development);
        fx::app_row(db, org, "com.example.other", AppStoreStatus::Development);
        let mine = fx::review_event(db, org, PKG, "submitted", 1);
        fx::review_event(db, org, "com.example.other", "submitted", 2);
        let history = reviews.history(org, &package(PKG)).await.unwrap().expect("history");
        assert_eq!(history.iter().map(|e| e.id.to_string()).collect::<Vec<_>>(), [mine]);
        assert!(history.iter().all(|e| e.package_name == package(PKG)));
    }
}
