//! Upgrades keep data: a database built with the migrations as they stood at commit b46b124 (2026-11-28, the
//! first commit whose migrations are all as they are today, the last one `20261128000700`), filled through
//! that schema with SQL, is migrated by today's binary and read back through today's repositories, on SQLite
//! and PostgreSQL. The migrations after it add `access_tokens` and the audit log's `via_token`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapter_db::Backend;
use adapter_db::repos::{DieselAuditLog, DieselOrgRepository};
use adapter_db::testing::empty;
use diesel::connection::SimpleConnection;
use domain::audit::ports::AuditLog as _;
use domain::audit::{AuditAction, AuditFilter, AuditScope};
use domain::common::{OrgId, UserId};
use domain::orgs::{OrgRepository as _, OrgRole};
use std::str::FromStr;

/// The last migration of the earlier release.
const EARLIER: &str = "20261128000700";
const USER: &str = "6f1c1e0e-2a43-4c8e-9a3c-000000000001";
const ORG: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000a1";

/// Rows of every kind these tables hold, written as the earlier schema had them.
const EARLIER_ROWS: &str = "
INSERT INTO accounts (id, email, password_hash, email_confirmed_at, created_at, updated_at, last_sign_in_at,
    profile, display_name, email_proven_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'ada@example.com', NULL, 1764300000000, 1764300000000,
    1764300000000, NULL, '{}', 'Ada', 1764300000000);
INSERT INTO organizations (id, name, website, contact_email, description, logo, created_at, updated_at,
    apps_revision, require_two_factor)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', 'Earlier Org', 'https://example.com', 'ops@example.com',
    'Made before the upgrade', NULL, 1764300000000, 1764300000000, 3, TRUE);
INSERT INTO org_members (org_id, user_id, role, joined_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'admin',
    1764300000000);
INSERT INTO audit_log (id, at, org_id, platform, actor_id, actor_email, action, target_kind, target_id,
    target_label, changes, client_ip, user_agent)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000e1', 1764300000000, '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', FALSE,
    '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'ada@example.com', 'org.updated', 'organization',
    '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', 'Earlier Org',
    '[{\"field\":\"name\",\"old\":\"Org\",\"new\":\"Earlier Org\"}]', '198.51.100.7', 'curl/8');
";

async fn upgrade_keeps_data(backend: Backend) {
    let test_db = empty(backend);
    let earlier = test_db.db.run_migrations_through(EARLIER).unwrap();
    assert_eq!(earlier.last().map(String::as_str), Some(EARLIER));
    let status = test_db.db.migration_status().unwrap();
    assert!(
        !status.pending.is_empty(),
        "{backend:?}: today's migrations are pending on the earlier schema"
    );
    let mut conn = test_db.db.connection().unwrap();
    conn.batch_execute(EARLIER_ROWS)
        .unwrap_or_else(|e| panic!("{backend:?}: the rows do not fit the earlier schema: {e}"));
    drop(conn);

    let applied = test_db.db.run_migrations().unwrap();
    assert_eq!(applied, status.pending, "{backend:?}: today's migrations ran");
    assert!(test_db.db.migration_status().unwrap().pending.is_empty());

    let (org_id, user_id) = (OrgId::from_str(ORG).unwrap(), UserId::from_str(USER).unwrap());
    let orgs = DieselOrgRepository::new(test_db.db.clone());
    let org = orgs.get(org_id).await.unwrap().expect("the organization is kept");
    assert_eq!(org.name, "Earlier Org");
    assert!(org.require_two_factor);
    assert_eq!(
        org.profile.contact_email.as_ref().map(|e| e.as_str()),
        Some("ops@example.com")
    );
    let members = orgs.members(org_id).await.unwrap();
    assert_eq!(members.len(), 1);
    assert_eq!(members[0].role, OrgRole::Admin);
    assert_eq!(members[0].user_id, user_id);

    let audit = DieselAuditLog::new(test_db.db.clone());
    let page = audit
        .list(AuditScope::Org(org_id), &AuditFilter::default(), None, 10)
        .await
        .unwrap();
    assert_eq!(page.entries.len(), 1, "{backend:?}: the audit entry is kept");
    let entry = &page.entries[0];
    assert_eq!(entry.action, AuditAction::OrgUpdated);
    assert_eq!(entry.client_ip.as_deref(), Some("198.51.100.7"));
    assert_eq!(entry.changes.len(), 1);
    assert_eq!(entry.changes[0].new, serde_json::json!("Earlier Org"));
    assert_eq!(
        entry.target.as_ref().and_then(|t| t.label.as_deref()),
        Some("Earlier Org")
    );
    assert_eq!(
        entry.via_token, None,
        "{backend:?}: an entry from before tokens was made by a session"
    );
}

#[tokio::test]
async fn an_earlier_sqlite_database_upgrades_and_keeps_its_rows() {
    upgrade_keeps_data(Backend::Sqlite).await;
}

#[tokio::test]
async fn an_earlier_postgres_database_upgrades_and_keeps_its_rows() {
    upgrade_keeps_data(Backend::Postgres).await;
}
