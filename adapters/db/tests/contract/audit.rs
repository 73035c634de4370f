//! The audit log: entries written by the change's own transaction (and gone with it when it fails), read by
//! organization or platform with filters and a cursor, newest first, and removed by the retention in batches.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::{
    self,
    app_fixtures::{at, package, sample_app},
};
use adapter_db::Backend;
use adapter_db::repos::{DieselAppRepository, DieselAuditLog};
use adapter_db::schema::{app_api_keys, apps, audit_log};
use diesel::prelude::*;
use domain::apps::ports::AppRepository;
use domain::audit::ports::AuditLog;
use domain::audit::{
    AuditAction, AuditCursor, AuditEntry, AuditFilter, AuditScope, AuditTarget, FieldChange,
};
use domain::common::{OrgId, RepoError, UserId};
use domain::review::{ReviewEvent, ReviewEventId, ReviewEventKind};
use serde_json::json;

const PKG: &str = "com.example.notes";

fn entry(org: OrgId, action: AuditAction, minutes: i64) -> AuditEntry {
    fixtures::audit_in(Some(org), action, at(minutes))
}

/// Every entry stored, whatever its scope.
fn stored(db: &adapter_db::Db) -> Vec<String> {
    let mut conn = db.connection().unwrap();
    audit_log::table
        .order(audit_log::at.asc())
        .select(audit_log::action)
        .load(&mut *conn)
        .unwrap()
}

fn key_of(db: &adapter_db::Db) -> Option<String> {
    let mut conn = db.connection().unwrap();
    app_api_keys::table
        .filter(app_api_keys::package_name.eq(PKG))
        .select(app_api_keys::key_hash)
        .first(&mut *conn)
        .optional()
        .unwrap()
}

/// Makes every insert into `audit_log` for `org` fail after the row was written (an AFTER trigger that
/// raises), as a crash or a lost connection between the entry and the commit would.
fn inject_fault_after_entries_of(db: &adapter_db::Db, org: OrgId) {
    inject_fault_after_entries_where(db, &format!("NEW.org_id = '{org}'"));
}

/// As [`inject_fault_after_entries_of`], for the entries that match `condition` (SQL on `NEW`).
fn inject_fault_after_entries_where(db: &adapter_db::Db, condition: &str) {
    let mut conn = db.connection().unwrap();
    let statements = match db.backend() {
        Backend::Sqlite => vec![format!(
            "CREATE TRIGGER audit_fault AFTER INSERT ON audit_log WHEN {condition} \
             BEGIN SELECT RAISE(ABORT, 'injected fault'); END"
        )],
        Backend::Postgres => vec![
            "CREATE FUNCTION audit_fault() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$ \
             LANGUAGE plpgsql"
                .to_owned(),
            format!(
                "CREATE TRIGGER audit_fault AFTER INSERT ON audit_log FOR EACH ROW WHEN ({condition}) \
                 EXECUTE FUNCTION audit_fault()"
            ),
        ],
    };
    for statement in statements {
        diesel::sql_query(statement).execute(&mut *conn).unwrap();
    }
}

/// A second fault trigger (the first keeps its name), on the entries of `org`.
fn inject_fault_after_entries_where_too(db: &adapter_db::Db, org: OrgId) {
    let mut conn = db.connection().unwrap();
    let statement = match db.backend() {
        Backend::Sqlite => format!(
            "CREATE TRIGGER audit_fault_too AFTER INSERT ON audit_log WHEN NEW.org_id = '{org}' \
             BEGIN SELECT RAISE(ABORT, 'injected fault'); END"
        ),
        Backend::Postgres => format!(
            "CREATE TRIGGER audit_fault_too AFTER INSERT ON audit_log FOR EACH ROW WHEN (NEW.org_id = '{org}') \
             EXECUTE FUNCTION audit_fault()"
        ),
    };
    diesel::sql_query(statement).execute(&mut *conn).unwrap();
}

async fn org_with_app(db: &adapter_db::Db) -> (OrgId, DieselAppRepository) {
    let repo = DieselAppRepository::new(db.clone());
    let org = fixtures::organization(db, "Acme");
    repo.insert(
        &sample_app(org, PKG),
        "hash-0",
        &entry(org, AuditAction::AppCreated, 0),
    )
    .await
    .unwrap();
    (org, repo)
}

contract! {
    async fn an_entry_is_stored_with_its_change_and_reads_back_whole(db) {
        let (org, repo) = org_with_app(db).await;
        let mut written = entry(org, AuditAction::AppKeyRegenerated, 5).on(AuditTarget::app(&package(PKG)));
        written.target = written.target.map(|t| t.with_label("Notes"));
        written = written.change("name", json!(null), json!("Notes ✓")).change("count", 2, 1);
        repo.replace_key_hash(org, &package(PKG), "hash-1", &written).await.unwrap();
        let page = DieselAuditLog::new(db.clone())
            .list(AuditScope::Org(org), &AuditFilter::default(), None, 50)
            .await
            .unwrap();
        assert_eq!(page.entries.len(), 2);
        assert_eq!(page.entries[0], written);
        assert_eq!(
            page.entries[0].changes[1],
            FieldChange { field: "count".into(), old: json!(2), new: json!(1) }
        );
        assert_eq!(page.entries[1].action, AuditAction::AppCreated);
        assert_eq!(page.next, None);
    }

    async fn targets_read_back_with_their_current_names_and_gone_ones_marked_deleted(db) {
        let (org, repo) = org_with_app(db).await;
        let on_app = entry(org, AuditAction::AppKeyRegenerated, 5).on(AuditTarget::app(&package(PKG)));
        repo.replace_key_hash(org, &package(PKG), "hash-1", &on_app).await.unwrap();
        let gone = AuditTarget::app(&package("com.gone.app")).with_label("Gone Notes");
        let on_gone = entry(org, AuditAction::AppKeyRegenerated, 6).on(gone.clone());
        repo.replace_key_hash(org, &package(PKG), "hash-2", &on_gone).await.unwrap();
        let page = DieselAuditLog::new(db.clone())
            .list(AuditScope::Org(org), &AuditFilter::default(), None, 50)
            .await
            .unwrap();
        // Newest first: the gone app keeps the name recorded with it, marked deleted.
        assert_eq!(page.entries[0].target, Some(AuditTarget { deleted: true, ..gone }));
        // The app that exists reads with its name now (recorded with none).
        let named = page.entries[1].target.clone().unwrap();
        assert_eq!((named.label.as_deref(), named.deleted), (Some("Notes"), false));
    }

    async fn a_change_that_fails_after_its_entry_was_written_leaves_neither(db) {
        let (org, repo) = org_with_app(db).await;
        inject_fault_after_entries_of(db, org);
        let err = repo
            .replace_key_hash(org, &package(PKG), "hash-new", &entry(org, AuditAction::AppKeyRegenerated, 5))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::Backend { .. }), "{err:?}");
        assert_eq!(key_of(db).as_deref(), Some("hash-0"), "the key is unchanged");
        assert_eq!(stored(db), ["app.created"], "no entry of the failed change");
    }

    async fn a_move_whose_second_entry_fails_keeps_the_app_and_neither_entry(db) {
        let (from, repo) = org_with_app(db).await;
        let to = fixtures::organization(db, "Target");
        inject_fault_after_entries_of(db, to);
        let event = ReviewEvent {
            id: ReviewEventId(uuid::Uuid::new_v4()),
            package_name: package(PKG),
            org_id: to,
            kind: ReviewEventKind::Moved,
            actor: UserId::new(),
            actor_email: fixtures::email("admin@example.com"),
            notes: None,
            at: at(5),
            detail: None,
        };
        let entries = [entry(from, AuditAction::AppMoved, 5), entry(to, AuditAction::AppMoved, 5)];
        let err = repo.move_app(from, to, &package(PKG), event, &entries).await.unwrap_err();
        assert!(matches!(err, RepoError::Backend { .. }), "{err:?}");
        let mut conn = db.connection().unwrap();
        let owner: String = apps::table
            .filter(apps::package_name.eq(PKG))
            .select(apps::org_id)
            .first(&mut *conn)
            .unwrap();
        assert_eq!(owner, from.to_string());
        assert_eq!(stored(db), ["app.created"], "the first entry went with the failed move");
    }

    async fn a_refused_change_writes_no_entry(db) {
        let (org, repo) = org_with_app(db).await;
        let other = fixtures::organization(db, "Other");
        let err = repo
            .replace_key_hash(other, &package(PKG), "hash-x", &entry(other, AuditAction::AppKeyRegenerated, 5))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::NotFound));
        let err = repo
            .insert(&sample_app(org, PKG), "hash-y", &entry(org, AuditAction::AppCreated, 6))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::Duplicate("package_name")));
        assert_eq!(stored(db), ["app.created"]);
    }

    async fn filters_and_cursor_pages_read_newest_first(db) {
        let (org, repo) = org_with_app(db).await;
        let other_org = fixtures::organization(db, "Other");
        let other_repo = DieselAppRepository::new(db.clone());
        other_repo
            .insert(&sample_app(other_org, "com.other.app"), "hash-o", &entry(other_org, AuditAction::AppCreated, 1))
            .await
            .unwrap();
        let alice = UserId::new();
        // Minutes 10..=19: visibility changes, alternately by Alice and someone else; two in the same
        // millisecond (15) so that the id decides their order.
        for minute in 10..20 {
            let mut written = entry(org, AuditAction::AppVisibilityChanged, if minute == 16 { 15 } else { minute })
                .on(AuditTarget::app(&package(PKG)));
            if minute % 2 == 0 {
                written.actor_id = Some(alice);
            }
            repo.set_visibility(org, &package(PKG), minute % 2 == 0, at(minute), &written).await.unwrap();
        }
        let log = DieselAuditLog::new(db.clone());
        let all = log.list(AuditScope::Org(org), &AuditFilter::default(), None, 100).await.unwrap();
        assert_eq!(all.entries.len(), 11);
        let keys: Vec<_> = all.entries.iter().map(|e| (e.at, e.id)).collect();
        let mut sorted = keys.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(keys, sorted, "newest first, then by id");

        // Pages of 4 walk the same entries, without gaps or repeats.
        let (mut walked, mut after) = (Vec::new(), None::<AuditCursor>);
        loop {
            let page = log.list(AuditScope::Org(org), &AuditFilter::default(), after, 4).await.unwrap();
            assert!(page.entries.len() <= 4);
            walked.extend(page.entries.iter().map(|e| e.id));
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(walked, all.entries.iter().map(|e| e.id).collect::<Vec<_>>());

        let by_alice = AuditFilter { actor: Some(alice), ..AuditFilter::default() };
        let page = log.list(AuditScope::Org(org), &by_alice, None, 100).await.unwrap();
        assert_eq!(page.entries.len(), 5);
        assert!(page.entries.iter().all(|e| e.actor_id == Some(alice)));

        let created = AuditFilter { action: Some(AuditAction::AppCreated), ..AuditFilter::default() };
        assert_eq!(log.list(AuditScope::Org(org), &created, None, 100).await.unwrap().entries.len(), 1);

        let of_app = AuditFilter { app: Some(package(PKG)), ..AuditFilter::default() };
        assert_eq!(log.list(AuditScope::Org(org), &of_app, None, 100).await.unwrap().entries.len(), 10);
        let of_other = AuditFilter { app: Some(package("com.other.app")), ..AuditFilter::default() };
        assert!(log.list(AuditScope::Org(org), &of_other, None, 100).await.unwrap().entries.is_empty());

        let window = AuditFilter { from: Some(at(12)), to: Some(at(14)), ..AuditFilter::default() };
        let page = log.list(AuditScope::Org(org), &window, None, 100).await.unwrap();
        assert!(page.entries.iter().all(|e| e.at >= at(12) && e.at < at(14)));
        assert_eq!(page.entries.len(), 2);

        let other = log.list(AuditScope::Org(other_org), &AuditFilter::default(), None, 100).await.unwrap();
        assert_eq!(other.entries.len(), 1, "another organization's entries are not mixed in");
    }

    async fn the_platform_log_holds_platform_entries_and_review_decisions(db) {
        let (org, repo) = org_with_app(db).await;
        let decision = entry(org, AuditAction::ReviewApproved, 3);
        let mut change = domain::apps::ports::StatusChange {
            to: domain::apps::AppStoreStatus::Submitted,
            review: None,
            at: at(3),
            event: ReviewEvent {
                id: ReviewEventId(uuid::Uuid::new_v4()),
                package_name: package(PKG),
                org_id: org,
                kind: ReviewEventKind::Submitted,
                actor: UserId::new(),
                actor_email: fixtures::email("admin@example.com"),
                notes: None,
                at: at(3),
                detail: None,
            },
            emails: Vec::new(),
            audit: vec![entry(org, AuditAction::AppPublished, 2)],
        };
        repo.transition(org, &package(PKG), domain::apps::AppStoreStatus::Development, change.clone())
            .await
            .unwrap();
        change.to = domain::apps::AppStoreStatus::Published;
        change.event.id = ReviewEventId(uuid::Uuid::new_v4());
        change.audit = vec![decision.clone()];
        repo.admin_transition(&package(PKG), domain::apps::AppStoreStatus::Submitted, change).await.unwrap();
        let log = DieselAuditLog::new(db.clone());
        let platform = log.list(AuditScope::Platform, &AuditFilter::default(), None, 50).await.unwrap();
        assert_eq!(platform.entries, vec![decision]);
        let org_log = log.list(AuditScope::Org(org), &AuditFilter::default(), None, 50).await.unwrap();
        assert_eq!(
            org_log.entries.iter().map(|e| e.action).collect::<Vec<_>>(),
            [AuditAction::ReviewApproved, AuditAction::AppPublished, AuditAction::AppCreated]
        );
    }

    async fn retention_removes_older_entries_in_batches(db) {
        let (org, repo) = org_with_app(db).await;
        for minute in 1..=6 {
            repo.set_visibility(org, &package(PKG), minute % 2 == 0, at(minute), &entry(org, AuditAction::AppVisibilityChanged, minute))
                .await
                .unwrap();
        }
        let log = DieselAuditLog::new(db.clone());
        assert_eq!(log.delete_older_than(at(4), 2).await.unwrap(), 2);
        assert_eq!(log.delete_older_than(at(4), 2).await.unwrap(), 2);
        assert_eq!(log.delete_older_than(at(4), 2).await.unwrap(), 0);
        assert_eq!(stored(db).len(), 3, "the entries of minutes 4, 5 and 6 stay");
    }

    async fn an_invitation_image_and_personal_organization_fail_with_their_entries(db) {
        use adapter_db::repos::{DieselImageRepository, DieselInviteRepository, DieselOrgRepository};
        use adapter_db::schema::{images, org_invites, organizations};
        use domain::media::{ImageMeta, ImageRepository};
        use domain::orgs::{Invite, InviteRepository, Member, OrgRepository, OrgRole, Organization};
        let org = fixtures::organization(db, "Acme");
        let admin = fixtures::account(db, "admin@example.com");
        inject_fault_after_entries_of(db, org);
        let invite = Invite {
            id: domain::common::InviteId::new(),
            org_id: org,
            email: fixtures::email("eve@example.com"),
            role: OrgRole::Member,
            token_hash: "h".into(),
            invited_by: admin,
            invited_at: at(1),
            expires_at: at(1) + chrono::Duration::days(7),
            email_sent_count: 1,
            accepted_at: None,
            cancelled_at: None,
        };
        let mail = domain::mail::OutgoingEmail {
            kind: domain::mail::EmailKind::OrgInvite,
            to: fixtures::email("eve@example.com"),
            subject: "s".into(),
            text: "t".into(),
            link: None,
        };
        let err = DieselInviteRepository::new(db.clone())
            .create(&invite, &mail, &entry(org, AuditAction::InviteSent, 1))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::Backend { .. }), "{err:?}");
        let image = ImageMeta {
            id: domain::common::ImageId::new(),
            org_id: org,
            uploaded_by: admin,
            content_type: "image/png".into(),
            size: 10,
            created_at: at(2),
            app_package: None,
        };
        let err = DieselImageRepository::new(db.clone())
            .insert(&image, &entry(org, AuditAction::ImageUploaded, 2))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::Backend { .. }), "{err:?}");
        let mut conn = db.connection().unwrap();
        let invitations: i64 = org_invites::table.count().get_result(&mut *conn).unwrap();
        let image_rows: i64 = images::table.count().get_result(&mut *conn).unwrap();
        assert_eq!((invitations, image_rows), (0, 0), "neither change committed");
        drop(conn);
        // A personal organization whose entry fails is not created.
        let personal = Organization::new("Mine".into(), at(3));
        inject_fault_after_entries_where_too(db, personal.id);
        let member = Member {
            user_id: admin,
            email: fixtures::email("admin@example.com"),
            role: OrgRole::Admin,
            joined_at: at(3),
            has_two_factor: false,
        };
        let err = DieselOrgRepository::new(db.clone())
            .create_personal(&personal, &member, &entry(personal.id, AuditAction::OrgCreated, 3))
            .await
            .unwrap_err();
        assert!(matches!(err, RepoError::Backend { .. }), "{err:?}");
        let mut conn = db.connection().unwrap();
        let orgs: i64 = organizations::table
            .filter(organizations::id.eq(personal.id.to_string()))
            .count()
            .get_result(&mut *conn)
            .unwrap();
        assert_eq!(orgs, 0);
        assert!(stored(db).is_empty());
    }

    async fn a_platform_role_change_fails_with_its_entry_and_an_operator_entry_names_no_account(db) {
        use adapter_db::repos::DieselPlatformAdminRepository;
        use domain::common::PlatformRole;
        use domain::identity::models::GrantBinding;
        use domain::identity::ports::PlatformAdminRepository;
        let repo = DieselPlatformAdminRepository::new(db.clone());
        let operator = |minutes| {
            let mut written = fixtures::audit_in(None, AuditAction::PlatformRoleGranted, at(minutes));
            written.actor_id = None;
            written.actor_email = domain::audit::OPERATOR_ACTOR.to_owned();
            (written.client_ip, written.user_agent) = (None, None);
            written.on(AuditTarget::platform_user("root@x.io")).change("platformRole", json!(null), "admin")
        };
        let granted = operator(1);
        repo.grant(&fixtures::email("root@x.io"), PlatformRole::Admin, None, GrantBinding::AnyAccount, at(1), &granted)
            .await
            .unwrap();
        let page = DieselAuditLog::new(db.clone())
            .list(AuditScope::Platform, &AuditFilter::default(), None, 50)
            .await
            .unwrap();
        assert_eq!(page.entries, [granted]);
        inject_fault_after_entries_where(db, "NEW.action = 'platform.role_revoked'");
        let revoked = fixtures::audit_in(None, AuditAction::PlatformRoleRevoked, at(2));
        repo.grant(&fixtures::email("two@x.io"), PlatformRole::Admin, None, GrantBinding::AnyAccount, at(2), &operator(2))
            .await
            .unwrap();
        let err = repo.remove(&fixtures::email("two@x.io"), &revoked).await.unwrap_err();
        assert!(matches!(err, RepoError::Backend { .. }), "{err:?}");
        assert_eq!(repo.list().await.unwrap().len(), 2, "the role is still there");
        assert_eq!(stored(db), ["platform.role_granted", "platform.role_granted"]);
    }
}
