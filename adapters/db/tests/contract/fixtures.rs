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
