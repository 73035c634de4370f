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

/// Inserts an app of `org` with the given public URL and store status (`SUBMITTED`, `PUBLISHED`…), plus its
/// API key, for the uptime contracts; answers its package name.
pub fn uptime_app(
    db: &Db,
    org: OrgId,
    package: &str,
    public_url: &str,
    status: &str,
) -> domain::apps::PackageName {
    use adapter_db::schema::{app_api_keys, apps};
    let mut conn = db.connection().expect("connection");
    diesel::insert_into(apps::table)
        .values((
            apps::package_name.eq(package),
            apps::org_id.eq(org.to_string()),
            apps::developer_id.eq("developer"),
            apps::name.eq(format!("App {package}")),
            apps::description.eq(""),
            apps::onboarding_instructions.eq(""),
            apps::public_url.eq(public_url),
            apps::logo_url.eq("https://logo.test/l.png"),
            apps::is_public.eq(true),
            apps::app_store_status.eq(status),
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
    diesel::insert_into(app_api_keys::table)
        .values((
            app_api_keys::package_name.eq(package),
            app_api_keys::key_hash.eq(format!("key-hash-{package}")),
            app_api_keys::created_at.eq(1_700_000_000_000_i64),
        ))
        .execute(&mut *conn)
        .expect("insert app key");
    domain::apps::PackageName::parse(package).expect("package name")
}
