//! Rows most contracts need: accounts, organizations, apps. Each fixture writes through plain SQL-free
//! diesel inserts so that it depends on no repository under test.

#![allow(dead_code)]

use adapter_db::Db;
use adapter_db::schema::{accounts, organizations};
use diesel::prelude::*;
use domain::common::{EmailAddress, OrgId, UserId};

pub fn email(text: &str) -> EmailAddress {
    EmailAddress::parse(text).expect("test email")
}

/// Inserts an account and answers its id.
pub fn account(db: &Db, address: &str) -> UserId {
    let id = UserId::new();
    let mut conn = db.connection().expect("connection");
    diesel::insert_into(accounts::table)
        .values((
            accounts::id.eq(id.to_string()),
            accounts::email.eq(address.to_lowercase()),
            accounts::created_at.eq(1_700_000_000_000_i64),
            accounts::updated_at.eq(1_700_000_000_000_i64),
            accounts::profile.eq("{}"),
        ))
        .execute(&mut *conn)
        .expect("insert account");
    id
}

/// Inserts a bare organization (no members) and answers its id.
pub fn organization(db: &Db, name: &str) -> OrgId {
    let id = OrgId::new();
    let mut conn = db.connection().expect("connection");
    diesel::insert_into(organizations::table)
        .values((
            organizations::id.eq(id.to_string()),
            organizations::name.eq(name),
            organizations::created_at.eq(1_700_000_000_000_i64),
            organizations::updated_at.eq(1_700_000_000_000_i64),
        ))
        .execute(&mut *conn)
        .expect("insert organization");
    id
}

/// 2026-03-15 12:00:00 UTC plus `minutes`: the instants contracts use.
#[allow(clippy::expect_used)]
pub fn at(minutes: i64) -> chrono::DateTime<chrono::Utc> {
    use chrono::TimeZone;
    chrono::Utc
        .with_ymd_and_hms(2026, 3, 15, 12, 0, 0)
        .single()
        .expect("instant")
        + chrono::Duration::minutes(minutes)
}

/// Inserts a member row (the account must exist) with the role's stored text (`admin`/`member`).
#[allow(clippy::expect_used)]
pub fn member(db: &Db, org: OrgId, user: UserId, role: &str, joined_at: chrono::DateTime<chrono::Utc>) {
    use adapter_db::schema::org_members;
    let mut conn = db.connection().expect("connection");
    diesel::insert_into(org_members::table)
        .values((
            org_members::org_id.eq(org.to_string()),
            org_members::user_id.eq(user.to_string()),
            org_members::role.eq(role),
            org_members::joined_at.eq(joined_at.timestamp_millis()),
        ))
        .execute(&mut *conn)
        .expect("insert member");
}

/// Inserts a minimal app owned by `org` (developer `developer`).
#[allow(clippy::expect_used)]
pub fn app(db: &Db, org: OrgId, developer: UserId, package_name: &str) {
    use adapter_db::schema::apps;
    let mut conn = db.connection().expect("connection");
    diesel::insert_into(apps::table)
        .values((
            apps::package_name.eq(package_name),
            apps::org_id.eq(org.to_string()),
            apps::developer_id.eq(developer.to_string()),
            apps::name.eq("App"),
            apps::description.eq(""),
            apps::onboarding_instructions.eq(""),
            apps::public_url.eq("https://app.example.com"),
            apps::logo_url.eq("https://app.example.com/logo.png"),
            apps::is_public.eq(false),
            apps::app_store_status.eq("development"),
            apps::app_type.eq("standard"),
            apps::created_at.eq(1_700_000_000_000_i64),
            apps::updated_at.eq(1_700_000_000_000_i64),
            apps::tools.eq("[]"),
            apps::settings.eq("[]"),
            apps::hardware_requirements.eq("[]"),
            apps::permissions.eq("[]"),
            apps::shared_with_organization.eq(false),
            apps::shared_with_emails.eq("[]"),
        ))
        .execute(&mut *conn)
        .expect("insert app");
}
