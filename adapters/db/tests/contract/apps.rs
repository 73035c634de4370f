//! `AppRepository`: registration, reads, edits, delete, keys, sharing and moves.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{
    self,
    app_fixtures::{self as fx, at, event, package, rows_of, sample_app},
};
use adapter_db::repos::DieselAppRepository;
use domain::apps::ports::AppRepository;
use domain::apps::{App, AppStoreStatus, AppType};
use domain::common::{OrgId, RepoError};
use domain::review::ReviewEventKind;
use serde_json::json;

const PKG: &str = "com.example.notes";

/// An app with every JSON column filled: several setting kinds, tools with parameters, permissions,
/// hardware and testers.
fn rich_app(org: OrgId) -> App {
    let mut app = sample_app(org, "com.example.rich");
    app.webview_url = Some("https://rich.example.com/webview".into());
    app.app_type = AppType::Standard;
    app.is_public = true;
    app.shared_with_organization = true;
    app.shared_with_emails = vec![fixtures::email("a@example.com"), fixtures::email("b@example.com")];
    app.settings = serde_json::from_value(json!([
        {"type": "group", "title": "General"},
        {"type": "titleValue", "label": "Version", "value": "1.2"},
        {"type": "toggle", "key": "enabled", "label": "Enabled", "defaultValue": true},
        {"type": "text", "key": "greeting", "label": "Greeting", "defaultValue": "héllo ✓"},
        {"type": "select", "key": "mode", "label": "Mode",
         "options": [{"label": "Fast", "value": "fast"}, {"label": "Two", "value": 2}], "defaultValue": 2},
        {"type": "multiselect", "key": "days", "label": "Days",
         "options": [{"label": "Mon", "value": "mon"}, {"label": "Tue", "value": "tue"}], "defaultValue": ["tue"]},
        {"type": "slider", "key": "volume", "label": "Volume", "min": 0.5, "max": 10.25, "defaultValue": 3.75},
        {"type": "numeric_input", "key": "count", "label": "Count", "min": 1.0, "step": 0.5,
         "placeholder": "How many", "defaultValue": 4.5},
        {"type": "time_picker", "key": "wake", "label": "Wake", "defaultValue": 27000, "showSeconds": true}
    ]))
    .expect("settings");
    app.tools = serde_json::from_value(json!([
        {"id": "search", "description": "Searches notes", "activationPhrases": ["find", "look up"],
         "parameters": {
            "query": {"type": "string", "description": "What to find", "required": true},
            "limit": {"type": "number", "description": "How many"},
            "scope": {"type": "string", "description": "Where", "enum": ["mine", "all"]}
         }},
        {"id": "clear", "description": "Clears", "parameters": {}}
    ]))
    .expect("tools");
    app.permissions = serde_json::from_value(json!([
        {"type": "MICROPHONE", "description": "To hear you"},
        {"type": "LOCATION"},
        {"type": "NOTIFICATIONS", "description": "legacy"}
    ]))
    .expect("permissions");
    app.hardware_requirements = serde_json::from_value(json!([
        {"type": "CAMERA", "level": "REQUIRED", "description": "Photos"},
        {"type": "DISPLAY", "level": "OPTIONAL"}
    ]))
    .expect("hardware");
    app.review_notes = Some("earlier notes".into());
    app.reviewed_by = Some("reviewer@example.com".into());
    app.reviewed_at = Some(at(500));
    app.updated_at = at(1_000);
    app
}

contract! {
    async fn an_inserted_app_reads_back_unchanged(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = sample_app(org, PKG);
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        assert_eq!(repo.get(org, &package(PKG)).await.unwrap(), Some(app.clone()));
        assert_eq!(repo.admin_get(&package(PKG)).await.unwrap(), Some(app.clone()));
        assert_eq!(repo.find_by_key_hash("hash-1").await.unwrap(), Some(app));
        assert_eq!(rows_of(db, "app_api_keys", PKG), 1);
    }

    async fn a_rich_app_round_trips_every_json_column(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = rich_app(org);
        assert_eq!(app.settings.len(), 9);
        assert_eq!(app.tools[0].parameters.len(), 3);
        repo.insert(&app, "hash-rich", &fixtures::audit()).await.unwrap();
        let stored = repo.get(org, &app.package_name).await.unwrap().expect("stored");
        assert_eq!(stored, app);
        let order: Vec<_> = stored.tools[0].parameters.keys().cloned().collect();
        assert_eq!(order, ["query", "limit", "scope"], "parameters keep their order");
        assert_eq!(stored.shared_with_emails[1].as_str(), "b@example.com");
    }

    async fn a_taken_package_name_is_a_duplicate_even_in_another_org(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let first = sample_app(acme, PKG);
        repo.insert(&first, "hash-1", &fixtures::audit()).await.unwrap();
        let mut second = sample_app(other, PKG);
        second.name = "Impostor".into();
        let err = repo.insert(&second, "hash-2", &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::Duplicate("package_name")), "{err:?}");
        let err = repo.insert(&sample_app(acme, PKG), "hash-3", &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::Duplicate("package_name")), "{err:?}");
        assert_eq!(repo.admin_get(&package(PKG)).await.unwrap(), Some(first));
        assert_eq!(repo.find_by_key_hash("hash-2").await.unwrap(), None, "no key of the refused app");
        assert!(repo.list(other).await.unwrap().is_empty());
    }

    async fn get_and_list_see_only_the_orgs_own_apps_newest_first(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        for (i, name) in ["com.a.one", "com.a.two", "com.a.three"].into_iter().enumerate() {
            let mut app = sample_app(acme, name);
            app.created_at = at(i64::try_from(i).unwrap() * 10);
            repo.insert(&app, &format!("k-{name}"), &fixtures::audit()).await.unwrap();
        }
        repo.insert(&sample_app(other, "com.o.one"), "k-other", &fixtures::audit()).await.unwrap();
        let names: Vec<_> = repo.list(acme).await.unwrap().into_iter().map(|a| a.package_name.to_string()).collect();
        assert_eq!(names, ["com.a.three", "com.a.two", "com.a.one"]);
        assert_eq!(repo.list(other).await.unwrap().len(), 1);
        assert_eq!(repo.get(other, &package("com.a.one")).await.unwrap(), None);
        assert_eq!(repo.get(acme, &package("com.o.one")).await.unwrap(), None);
        assert!(repo.list(OrgId::new()).await.unwrap().is_empty());
    }

    async fn update_writes_only_the_editable_fields(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let stored = rich_app(org);
        repo.insert(&stored, "hash-1", &fixtures::audit()).await.unwrap();
        let mut next = sample_app(org, "com.example.rich");
        next.name = "Renamed".into();
        next.description = "New description".into();
        next.webview_url = None;
        next.app_type = AppType::Background;
        next.updated_at = at(2_000);
        // Fields update must never write, set to other values:
        next.is_public = false;
        next.shared_with_organization = false;
        next.review_notes = None;
        next.org_id = OrgId::new();
        next.created_at = at(9_999);
        repo.update(org, &next, AppStoreStatus::Development, Vec::new(), &fixtures::audit()).await.unwrap();

        let after = repo.get(org, &stored.package_name).await.unwrap().expect("app");
        let mut expected = stored.clone();
        expected.name = "Renamed".into();
        expected.description = "New description".into();
        expected.onboarding_instructions = next.onboarding_instructions.clone();
        expected.public_url = next.public_url.clone();
        expected.logo_url = next.logo_url.clone();
        expected.webview_url = None;
        expected.app_type = AppType::Background;
        expected.settings = Vec::new();
        expected.tools = Vec::new();
        expected.permissions = Vec::new();
        expected.hardware_requirements = Vec::new();
        expected.updated_at = at(2_000);
        assert_eq!(after, expected);
        assert_eq!(repo.find_by_key_hash("hash-1").await.unwrap().map(|a| a.name), Some("Renamed".into()));
        assert_eq!(rows_of(db, "review_events", "com.example.rich"), 0, "no event was given");
    }

    async fn update_records_its_event_in_the_same_write(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let mut app = sample_app(org, PKG);
        app.app_store_status = AppStoreStatus::Published;
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        app.name = "Edited".into();
        let edit = event(org, PKG, ReviewEventKind::EditedAfterApproval, 5)
            .with_detail(json!({"changedFields": ["name"]}));
        repo.update(org, &app, AppStoreStatus::Published, vec![edit.clone()], &fixtures::audit()).await.unwrap();
        let stored = repo.get(org, &package(PKG)).await.unwrap().expect("app");
        assert_eq!(stored.name, "Edited");
        assert_eq!(stored.app_store_status, AppStoreStatus::Published);
        let history = adapter_db::repos::DieselReviewRepository::new(db.clone());
        use domain::review::ReviewRepository;
        assert_eq!(history.admin_history(&package(PKG)).await.unwrap(), vec![edit]);
    }

    async fn an_app_stored_with_a_legacy_status_spelling_can_be_edited_and_published(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let developer = domain::common::UserId::new().to_string();
        adapter_db::testing::insert_app(db, &org.to_string(), &developer, PKG, "https://a.example.com", "development");
        let app = repo.get(org, &package(PKG)).await.unwrap().expect("app");
        assert_eq!(app.app_store_status, AppStoreStatus::Development);
        let mut next = app.clone();
        next.name = "Edited".into();
        repo.update(org, &next, AppStoreStatus::Development, Vec::new(), &fixtures::audit()).await.unwrap();
        let stored = repo.get(org, &package(PKG)).await.unwrap().expect("app");
        assert_eq!((stored.name.as_str(), stored.app_store_status), ("Edited", AppStoreStatus::Development));
        let change = domain::apps::ports::StatusChange {
            to: AppStoreStatus::Submitted,
            review: None,
            at: at(9),
            event: event(org, PKG, ReviewEventKind::Submitted, 9),
            emails: Vec::new(),
            audit: Vec::new(),
        };
        let submitted = repo.transition(org, &package(PKG), AppStoreStatus::Development, change).await.unwrap();
        assert_eq!(submitted.app_store_status, AppStoreStatus::Submitted);
    }

    async fn update_may_send_a_published_app_back_to_submitted_with_its_events(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let mut app = sample_app(org, PKG);
        app.app_store_status = AppStoreStatus::Published;
        app.review_notes = Some("Looks good".into());
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        let mut next = app.clone();
        next.permissions = vec![domain::apps::Permission {
            kind: domain::apps::PermissionType::Camera,
            description: None,
        }];
        next.app_store_status = AppStoreStatus::Submitted;
        let edit = event(org, PKG, ReviewEventKind::EditedAfterApproval, 5)
            .with_detail(json!({"changedFields": ["permissions"]}));
        let resubmitted = event(org, PKG, ReviewEventKind::Resubmitted, 6)
            .with_detail(json!({"addedPermissions": ["CAMERA"]}));
        repo.update(org, &next, AppStoreStatus::Published, vec![edit.clone(), resubmitted.clone()], &fixtures::audit())
            .await
            .unwrap();
        let stored = repo.get(org, &package(PKG)).await.unwrap().expect("app");
        assert_eq!(stored.app_store_status, AppStoreStatus::Submitted);
        assert_eq!(stored.permissions, next.permissions);
        assert_eq!(stored.review_notes.as_deref(), Some("Looks good"), "review fields are kept");
        let history = adapter_db::repos::DieselReviewRepository::new(db.clone());
        use domain::review::ReviewRepository;
        assert_eq!(history.admin_history(&package(PKG)).await.unwrap(), vec![edit, resubmitted]);
    }

    async fn update_with_a_stale_status_is_a_conflict_and_writes_nothing(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let mut app = sample_app(org, PKG);
        app.app_store_status = AppStoreStatus::Submitted;
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        let mut next = app.clone();
        next.name = "Too late".into();
        let edit = event(org, PKG, ReviewEventKind::EditedAfterApproval, 5);
        let err = repo.update(org, &next, AppStoreStatus::Published, vec![edit], &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::Conflict(_)), "{err:?}");
        assert_eq!(repo.get(org, &package(PKG)).await.unwrap(), Some(app));
        assert_eq!(rows_of(db, "review_events", PKG), 0);
    }

    async fn update_of_another_orgs_app_is_not_found_and_changes_nothing(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let app = sample_app(acme, PKG);
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        let mut next = app.clone();
        next.name = "Hijacked".into();
        let err = repo
            .update(other, &next, AppStoreStatus::Development, vec![event(other, PKG, ReviewEventKind::EditedAfterApproval, 1)], &fixtures::audit())
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.get(acme, &package(PKG)).await.unwrap(), Some(app));
        assert_eq!(rows_of(db, "review_events", PKG), 0);
    }

    async fn delete_removes_the_app_and_everything_that_hangs_on_it(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        repo.insert(&sample_app(acme, PKG), "hash-1", &fixtures::audit()).await.unwrap();
        repo.insert(&sample_app(acme, "com.example.keep"), "hash-keep", &fixtures::audit()).await.unwrap();
        repo.create_share_token(acme, &package(PKG), "token-1", at(1)).await.unwrap();
        fx::review_event(db, acme, PKG, "submitted", 1);
        fx::review_event(db, acme, "com.example.keep", "submitted", 1);
        fx::uptime_rows(db, PKG);
        fx::uptime_rows(db, "com.example.keep");
        let first = fx::image(db, acme, Some(PKG), 1);
        let second = fx::image(db, acme, Some(PKG), 2);
        let unrelated = fx::image(db, acme, None, 3);
        let others = fx::image(db, other, Some(PKG), 4);

        let removed = repo.delete(acme, &package(PKG), &fixtures::audit()).await.unwrap();
        assert_eq!(removed, vec![first, second]);
        assert_eq!(repo.get(acme, &package(PKG)).await.unwrap(), None);
        assert_eq!(repo.find_by_key_hash("hash-1").await.unwrap(), None);
        assert_eq!(repo.find_by_share_token("token-1").await.unwrap(), None);
        for table in ["apps", "app_api_keys", "app_share_tokens", "review_events", "uptime_monitor",
                      "uptime_checks", "uptime_daily", "uptime_state_changes"] {
            assert_eq!(rows_of(db, table, PKG), 0, "{table}");
        }
        assert_eq!(rows_of(db, "images", PKG), 1, "only another organization's image row remains");
        let images = adapter_db::repos::DieselImageRepository::new(db.clone());
        use domain::media::ImageRepository;
        assert!(images.get(other, others).await.unwrap().is_some());
        assert!(images.get(acme, unrelated).await.unwrap().is_some());
        for table in ["apps", "app_api_keys", "review_events", "uptime_monitor", "uptime_checks"] {
            assert_eq!(rows_of(db, table, "com.example.keep"), 1, "{table} of the other app");
        }
        // The package name is free again, for any organization.
        repo.insert(&sample_app(other, PKG), "hash-new", &fixtures::audit()).await.unwrap();
        assert_eq!(repo.find_by_key_hash("hash-new").await.unwrap().map(|a| a.org_id), Some(other));
    }

    async fn delete_of_another_orgs_app_is_not_found_and_removes_nothing(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        repo.insert(&sample_app(acme, PKG), "hash-1", &fixtures::audit()).await.unwrap();
        repo.create_share_token(acme, &package(PKG), "token-1", at(1)).await.unwrap();
        fx::review_event(db, acme, PKG, "submitted", 1);
        fx::uptime_rows(db, PKG);
        fx::image(db, acme, Some(PKG), 1);
        let err = repo.delete(other, &package(PKG), &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo.delete(acme, &package("com.example.none"), &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        for table in ["apps", "app_api_keys", "app_share_tokens", "review_events", "images", "uptime_monitor",
                      "uptime_checks", "uptime_daily", "uptime_state_changes"] {
            assert_eq!(rows_of(db, table, PKG), 1, "{table}");
        }
    }

    async fn a_replaced_key_hash_finds_the_app_and_the_old_one_does_not(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        repo.insert(&sample_app(acme, PKG), "old-hash", &fixtures::audit()).await.unwrap();
        repo.replace_key_hash(acme, &package(PKG), "new-hash", &fixtures::audit()).await.unwrap();
        assert_eq!(repo.find_by_key_hash("old-hash").await.unwrap(), None);
        assert_eq!(repo.find_by_key_hash("new-hash").await.unwrap().map(|a| a.package_name), Some(package(PKG)));
        assert_eq!(rows_of(db, "app_api_keys", PKG), 1);

        let err = repo.replace_key_hash(other, &package(PKG), "stolen-hash", &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo.replace_key_hash(acme, &package("com.example.none"), "x", &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.find_by_key_hash("stolen-hash").await.unwrap(), None);
        assert!(repo.find_by_key_hash("new-hash").await.unwrap().is_some());
        assert_eq!(repo.find_by_key_hash("unknown").await.unwrap(), None);
    }

    async fn visibility_and_testers_are_written_for_the_orgs_own_app_only(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let app = sample_app(acme, PKG);
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        repo.set_visibility(acme, &package(PKG), true, at(10), &fixtures::audit()).await.unwrap();
        let testers = vec![fixtures::email("t1@example.com"), fixtures::email("t2@example.com")];
        repo.set_share_emails(acme, &package(PKG), testers.clone(), at(20), &fixtures::audit()).await.unwrap();
        let stored = repo.get(acme, &package(PKG)).await.unwrap().expect("app");
        assert!(stored.shared_with_organization);
        assert_eq!(stored.shared_with_emails, testers);
        assert_eq!(stored.updated_at, at(20));

        let err = repo.set_visibility(other, &package(PKG), false, at(30), &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo.set_share_emails(other, &package(PKG), Vec::new(), at(30), &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo.set_visibility(acme, &package("com.example.none"), true, at(30), &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.get(acme, &package(PKG)).await.unwrap(), Some(stored));

        repo.set_share_emails(acme, &package(PKG), Vec::new(), at(40), &fixtures::audit()).await.unwrap();
        assert!(repo.get(acme, &package(PKG)).await.unwrap().expect("app").shared_with_emails.is_empty());
    }

    async fn the_first_share_token_stays_and_finds_the_app(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let app = sample_app(org, PKG);
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        assert_eq!(repo.share_token(org, &package(PKG)).await.unwrap(), None);
        assert_eq!(repo.create_share_token(org, &package(PKG), "first", at(1)).await.unwrap(), "first");
        assert_eq!(repo.create_share_token(org, &package(PKG), "second", at(2)).await.unwrap(), "first");
        assert_eq!(repo.share_token(org, &package(PKG)).await.unwrap(), Some("first".into()));
        assert_eq!(repo.find_by_share_token("first").await.unwrap(), Some(app));
        assert_eq!(repo.find_by_share_token("second").await.unwrap(), None);
    }

    async fn replacing_the_share_token_retires_the_old_one_at_once(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (org, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let app = sample_app(org, PKG);
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        // With no token yet, a reset creates one.
        repo.replace_share_token(org, &package(PKG), "first", at(1), &fixtures::audit()).await.unwrap();
        assert_eq!(repo.find_by_share_token("first").await.unwrap(), Some(app.clone()));
        repo.replace_share_token(org, &package(PKG), "second", at(2), &fixtures::audit()).await.unwrap();
        assert_eq!(repo.find_by_share_token("first").await.unwrap(), None);
        assert_eq!(repo.find_by_share_token("second").await.unwrap(), Some(app));
        assert_eq!(repo.share_token(org, &package(PKG)).await.unwrap(), Some("second".into()));
        assert_eq!(rows_of(db, "app_share_tokens", PKG), 1);
        // Another organization cannot reset it, and nothing changes.
        let err = repo.replace_share_token(other, &package(PKG), "third", at(3), &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.share_token(org, &package(PKG)).await.unwrap(), Some("second".into()));
        let err = repo.replace_share_token(org, &package("com.example.none"), "x", at(4), &fixtures::audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
    }

    async fn concurrent_share_token_creators_get_the_same_token(db) {
        let repo = DieselAppRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        repo.insert(&sample_app(org, PKG), "hash-1", &fixtures::audit()).await.unwrap();
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let repo = repo.clone();
                tokio::spawn(async move {
                    repo.create_share_token(org, &package(PKG), &format!("token-{i}"), at(i)).await
                })
            })
            .collect();
        let mut answers = Vec::new();
        for task in tasks {
            answers.push(task.await.expect("task").expect("every creator succeeds"));
        }
        assert!(answers.iter().all(|t| *t == answers[0]), "{answers:?}");
        assert_eq!(repo.share_token(org, &package(PKG)).await.unwrap(), Some(answers[0].clone()));
        assert_eq!(rows_of(db, "app_share_tokens", PKG), 1);
    }

    async fn another_org_neither_reads_nor_creates_the_share_token(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        repo.insert(&sample_app(acme, PKG), "hash-1", &fixtures::audit()).await.unwrap();
        repo.create_share_token(acme, &package(PKG), "mine", at(1)).await.unwrap();
        assert_eq!(repo.share_token(other, &package(PKG)).await.unwrap(), None);
        let err = repo.create_share_token(other, &package(PKG), "theirs", at(2)).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo.create_share_token(acme, &package("com.example.none"), "x", at(2)).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.find_by_share_token("theirs").await.unwrap(), None);
        assert_eq!(repo.share_token(acme, &package(PKG)).await.unwrap(), Some("mine".into()));
    }

    async fn a_moved_app_keeps_its_key_status_history_and_images(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, target) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Target"));
        let mut app = rich_app(acme);
        app.app_store_status = AppStoreStatus::Published;
        let name = app.package_name.to_string();
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        repo.create_share_token(acme, &app.package_name, "token-1", at(1)).await.unwrap();
        let earlier = fx::review_event(db, acme, &name, "approved", 1);
        let logo = fx::image(db, acme, Some(&name), 1);
        let moved = event(target, &name, ReviewEventKind::Moved, 50)
            .with_detail(json!({"fromOrgId": acme, "toOrgId": target}));
        repo.move_app(acme, target, &app.package_name, moved.clone(), &[fixtures::audit()]).await.unwrap();

        assert_eq!(repo.get(acme, &app.package_name).await.unwrap(), None);
        let mut expected = app.clone();
        expected.org_id = target;
        assert_eq!(repo.get(target, &app.package_name).await.unwrap(), Some(expected.clone()));
        assert_eq!(repo.find_by_key_hash("hash-1").await.unwrap(), Some(expected));
        assert_eq!(repo.share_token(target, &app.package_name).await.unwrap(), Some("token-1".into()));
        let history = adapter_db::repos::DieselReviewRepository::new(db.clone());
        use domain::review::ReviewRepository;
        let events = history.history(target, &app.package_name).await.unwrap().expect("history");
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].id.to_string(), earlier);
        assert_eq!(events[1], moved);
        let images = adapter_db::repos::DieselImageRepository::new(db.clone());
        use domain::media::ImageRepository;
        assert_eq!(images.get(target, logo).await.unwrap().map(|i| i.org_id), Some(target));
    }

    async fn moving_an_app_the_org_does_not_have_is_not_found_and_writes_nothing(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, other, target) = (
            fixtures::organization(db, "Acme"),
            fixtures::organization(db, "Other"),
            fixtures::organization(db, "Target"),
        );
        let app = sample_app(acme, PKG);
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        let err = repo
            .move_app(other, target, &package(PKG), event(target, PKG, ReviewEventKind::Moved, 1), &[fixtures::audit()])
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo
            .move_app(acme, OrgId::new(), &package(PKG), event(target, PKG, ReviewEventKind::Moved, 1), &[fixtures::audit()])
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "a target that does not exist: {err:?}");
        assert_eq!(repo.get(acme, &package(PKG)).await.unwrap(), Some(app));
        assert_eq!(rows_of(db, "review_events", PKG), 0);
    }

    async fn every_change_to_an_orgs_apps_moves_its_revision_and_nothing_else_does(db) {
        let repo = DieselAppRepository::new(db.clone());
        let (acme, target) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Target"));
        let unrelated = fixtures::organization(db, "Unrelated");
        let revisions = || async {
            (
                repo.revision(acme).await.unwrap(),
                repo.revision(target).await.unwrap(),
                repo.revision(unrelated).await.unwrap(),
            )
        };
        let mut seen = vec![revisions().await];
        let app = sample_app(acme, PKG);
        repo.insert(&app, "hash-1", &fixtures::audit()).await.unwrap();
        seen.push(revisions().await);
        let mut next = app.clone();
        next.description = "Edited".into();
        repo.update(acme, &next, AppStoreStatus::Development, Vec::new(), &fixtures::audit()).await.unwrap();
        seen.push(revisions().await);
        repo.set_visibility(acme, &app.package_name, true, at(5), &fixtures::audit()).await.unwrap();
        seen.push(revisions().await);
        // Reads change nothing.
        repo.list(acme).await.unwrap();
        repo.get(acme, &app.package_name).await.unwrap();
        assert_eq!(revisions().await, *seen.last().unwrap());
        repo.move_app(acme, target, &app.package_name, event(target, PKG, ReviewEventKind::Moved, 9), &[fixtures::audit()])
            .await
            .unwrap();
        seen.push(revisions().await);
        repo.delete(target, &app.package_name, &fixtures::audit()).await.unwrap();
        seen.push(revisions().await);

        // acme: insert, update, visibility and the move out; target: the move in and the delete.
        let acme_changes = seen.windows(2).filter(|pair| pair[0].0 != pair[1].0).count();
        let target_changes = seen.windows(2).filter(|pair| pair[0].1 != pair[1].1).count();
        assert_eq!((acme_changes, target_changes), (4, 2), "{seen:?}");
        assert!(seen.iter().all(|r| r.2 == seen[0].2), "{seen:?}");
        // An organization that does not exist has a revision too, which does not move either.
        let nowhere = OrgId::new();
        assert_eq!(repo.revision(nowhere).await.unwrap(), repo.revision(nowhere).await.unwrap());
    }
}
