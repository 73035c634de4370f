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

/// Fixtures of the apps, reviews and images contracts (in a module of their own, so that their names and
/// imports never collide with other fixtures).
pub mod app_fixtures {
    #![allow(clippy::expect_used)]

    use super::{Db, OrgId, UserId, email, organizations};
    use adapter_db::schema::{
        app_api_keys, app_share_tokens, apps, email_outbox, images, review_events, uptime_checks,
        uptime_daily, uptime_monitor, uptime_state_changes,
    };
    use chrono::{DateTime, TimeZone, Utc};
    use diesel::prelude::*;
    use domain::apps::{App, AppStoreStatus, AppType, PackageName};
    use domain::common::ImageId;
    use domain::review::{ReviewEvent, ReviewEventId, ReviewEventKind};

    /// An instant `ms` milliseconds after 2023-11-14T22:13:20Z (millisecond precision, as stored).
    pub fn at(ms: i64) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(1_700_000_000_000 + ms)
            .single()
            .expect("instant")
    }

    pub fn package(text: &str) -> PackageName {
        PackageName::parse(text).expect("test package name")
    }

    /// A plain DEVELOPMENT app of `org` (no settings, tools, permissions or hardware), not stored.
    pub fn sample_app(org: OrgId, name: &str) -> App {
        App {
            name: "Notes".into(),
            description: "Takes notes".into(),
            onboarding_instructions: "Say hello".into(),
            public_url: "https://notes.example.com".into(),
            logo_url: "https://portal.example.com/api/images/logo".into(),
            app_type: AppType::Background,
            ..App::registered(package(name), org, UserId::new(), at(0))
        }
    }

    /// Inserts a bare app row of `org` in `status` (no key, no events) with plain diesel, and answers its name.
    pub fn app_row(db: &Db, org: OrgId, name: &str, status: AppStoreStatus) -> PackageName {
        let mut conn = db.connection().expect("connection");
        diesel::insert_into(apps::table)
            .values((
                apps::package_name.eq(name),
                apps::org_id.eq(org.to_string()),
                apps::developer_id.eq(UserId::new().to_string()),
                apps::name.eq("Fixture app"),
                apps::description.eq(""),
                apps::onboarding_instructions.eq(""),
                apps::public_url.eq("https://fixture.example.com"),
                apps::logo_url.eq(""),
                apps::is_public.eq(false),
                apps::app_store_status.eq(status.code()),
                apps::app_type.eq("background"),
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
        package(name)
    }

    /// Inserts a review event row for `package` of kind `kind` at `at(ms)`, and answers its id.
    pub fn review_event(db: &Db, org: OrgId, name: &str, kind: &str, ms: i64) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        let mut conn = db.connection().expect("connection");
        diesel::insert_into(review_events::table)
            .values((
                review_events::id.eq(&id),
                review_events::package_name.eq(name),
                review_events::org_id.eq(org.to_string()),
                review_events::kind.eq(kind),
                review_events::actor_id.eq(UserId::new().to_string()),
                review_events::actor_email.eq("actor@example.com"),
                review_events::at.eq(1_700_000_000_000_i64 + ms),
            ))
            .execute(&mut *conn)
            .expect("insert review event");
        id
    }

    /// Inserts an image row of `org`, optionally uploaded for an app, created at `at(ms)`; answers its id.
    pub fn image(db: &Db, org: OrgId, app_package: Option<&str>, ms: i64) -> ImageId {
        let id = ImageId::new();
        let mut conn = db.connection().expect("connection");
        diesel::insert_into(images::table)
            .values((
                images::id.eq(id.to_string()),
                images::org_id.eq(org.to_string()),
                images::uploaded_by.eq(UserId::new().to_string()),
                images::content_type.eq("image/png"),
                images::size.eq(1234_i64),
                images::app_package.eq(app_package),
                images::created_at.eq(1_700_000_000_000_i64 + ms),
            ))
            .execute(&mut *conn)
            .expect("insert image");
        id
    }

    /// Inserts one row in each uptime table for the app.
    pub fn uptime_rows(db: &Db, name: &str) {
        let mut conn = db.connection().expect("connection");
        // A monitored app has its row already (made with it).
        let monitor = diesel::insert_into(uptime_monitor::table)
            .values((
                uptime_monitor::package_name.eq(name),
                uptime_monitor::check_slot_at.eq(1_700_000_000_000_i64),
                uptime_monitor::consecutive_failures.eq(0),
            ))
            .on_conflict_do_nothing();
        match &mut *conn {
            adapter_db::DbConnection::Sqlite(c) => monitor.execute(c),
            adapter_db::DbConnection::Postgres(c) => monitor.execute(c),
        }
        .expect("insert uptime monitor");
        diesel::insert_into(uptime_checks::table)
            .values((
                uptime_checks::package_name.eq(name),
                uptime_checks::checked_at.eq(1_700_000_000_000_i64),
                uptime_checks::health.eq("healthy"),
                uptime_checks::online.eq(true),
                uptime_checks::healthy.eq(true),
            ))
            .execute(&mut *conn)
            .expect("insert uptime check");
        diesel::insert_into(uptime_daily::table)
            .values((
                uptime_daily::package_name.eq(name),
                uptime_daily::day.eq("2023-11-14"),
                uptime_daily::healthy.eq(1),
                uptime_daily::unhealthy.eq(0),
                uptime_daily::total.eq(1),
                uptime_daily::latency_sum_ms.eq(20_i64),
                uptime_daily::latency_count.eq(1),
            ))
            .execute(&mut *conn)
            .expect("insert uptime day");
        diesel::insert_into(uptime_state_changes::table)
            .values((
                uptime_state_changes::package_name.eq(name),
                uptime_state_changes::changed_at.eq(1_700_000_000_000_i64),
                uptime_state_changes::online.eq(true),
                uptime_state_changes::health.eq("healthy"),
            ))
            .execute(&mut *conn)
            .expect("insert uptime state change");
    }

    /// Sets an organization's contact e-mail with plain diesel.
    pub fn org_contact(db: &Db, org: OrgId, contact: Option<&str>) {
        let mut conn = db.connection().expect("connection");
        diesel::update(organizations::table.filter(organizations::id.eq(org.to_string())))
            .set(organizations::contact_email.eq(contact))
            .execute(&mut *conn)
            .expect("set contact email");
    }

    /// A review event about `name` in `org`, by a fresh actor, at `at(ms)` (not stored).
    pub fn event(org: OrgId, name: &str, kind: ReviewEventKind, ms: i64) -> ReviewEvent {
        ReviewEvent {
            id: ReviewEventId(uuid::Uuid::new_v4()),
            package_name: package(name),
            org_id: org,
            kind,
            actor: UserId::new(),
            actor_email: email("actor@example.com"),
            notes: None,
            at: at(ms),
            detail: None,
        }
    }

    /// How many rows of `table` (one of the app-related tables) refer to the app `name`.
    pub fn rows_of(db: &Db, table: &str, name: &str) -> i64 {
        let mut conn = db.connection().expect("connection");
        let conn = &mut *conn;
        let name = name.to_owned();
        match table {
            "apps" => apps::table
                .filter(apps::package_name.eq(name))
                .count()
                .get_result(conn),
            "app_api_keys" => app_api_keys::table
                .filter(app_api_keys::package_name.eq(name))
                .count()
                .get_result(conn),
            "app_share_tokens" => app_share_tokens::table
                .filter(app_share_tokens::package_name.eq(name))
                .count()
                .get_result(conn),
            "review_events" => review_events::table
                .filter(review_events::package_name.eq(name))
                .count()
                .get_result(conn),
            "images" => images::table
                .filter(images::app_package.eq(name))
                .count()
                .get_result(conn),
            "uptime_monitor" => uptime_monitor::table
                .filter(uptime_monitor::package_name.eq(name))
                .count()
                .get_result(conn),
            "uptime_checks" => uptime_checks::table
                .filter(uptime_checks::package_name.eq(name))
                .count()
                .get_result(conn),
            "uptime_daily" => uptime_daily::table
                .filter(uptime_daily::package_name.eq(name))
                .count()
                .get_result(conn),
            "uptime_state_changes" => uptime_state_changes::table
                .filter(uptime_state_changes::package_name.eq(name))
                .count()
                .get_result(conn),
            other => panic!("no such table {other}"),
        }
        .expect("count rows")
    }

    /// The outbox rows, as (kind, recipient), oldest first.
    pub fn outbox(db: &Db) -> Vec<(String, String)> {
        let mut conn = db.connection().expect("connection");
        email_outbox::table
            .order(email_outbox::created_at.asc())
            .select((email_outbox::kind, email_outbox::recipient))
            .load(&mut *conn)
            .expect("read outbox")
    }
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

/// An audit entry by a made-up admin (the contracts that do not read the log pass it where a write takes
/// one); a fresh id each time.
pub fn audit() -> domain::audit::AuditEntry {
    audit_in(None, domain::audit::AuditAction::AppUpdated, at(0))
}

/// An audit entry of `action` in `org` at `when`, by a made-up admin from a made-up address.
pub fn audit_in(
    org: Option<OrgId>,
    action: domain::audit::AuditAction,
    when: chrono::DateTime<chrono::Utc>,
) -> domain::audit::AuditEntry {
    domain::audit::AuditEntry {
        id: domain::audit::AuditEntryId(uuid::Uuid::new_v4()),
        at: when,
        org_id: org,
        actor_id: Some(UserId::new()),
        actor_email: "admin@example.com".into(),
        action,
        target: None,
        changes: Vec::new(),
        client_ip: Some("203.0.113.7".into()),
        user_agent: Some("contract-test".into()),
        via_token: None,
    }
}

/// A security notice e-mail to `to`, as the identity service writes with a change.
pub fn notice(to: &str, what: &str) -> domain::mail::OutgoingEmail {
    domain::mail::OutgoingEmail {
        kind: domain::mail::EmailKind::SecurityNotice,
        to: domain::common::EmailAddress::parse(to).unwrap(),
        subject: format!("Security: {what}"),
        text: what.to_owned(),
        link: Some("https://portal.test/account/security".to_owned()),
    }
}

/// The subjects of the outbox's security notices, oldest first.
pub async fn notices(db: &adapter_db::Db) -> Vec<String> {
    crate::codes::outbox(db)
        .await
        .into_iter()
        .filter(|row| row.0 == "security_notice")
        .map(|row| row.2)
        .collect()
}
