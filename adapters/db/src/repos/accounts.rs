//! Accounts of the built-in identity service (`accounts`). A write that makes an address proven binds the platform role waiting for it
//! in the same transaction (`bind_waiting_role`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::{EmailAddress, RepoError, UserId};
use domain::identity::models::Account;
use domain::identity::ports::AccountRepository;
use domain::mail::OutgoingEmail;
use serde_json::Value;

use super::admins::bind_waiting_role;
use crate::Db;
use crate::convert::{
    backend, db_error, from_json, from_millis, from_millis_opt, parse_stored, to_json, to_millis,
};
use crate::outbox_rows;
use crate::schema::accounts;

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = accounts)]
struct AccountRow {
    id: String,
    email: String,
    password_hash: Option<String>,
    email_confirmed_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
    last_sign_in_at: Option<i64>,
    profile: String,
    display_name: Option<String>,
    email_proven_at: Option<i64>,
}

impl AccountRow {
    fn from_domain(account: &Account) -> Result<Self, RepoError> {
        Ok(Self {
            id: account.id.to_string(),
            email: account.email.as_str().to_owned(),
            password_hash: account.password_hash.clone(),
            email_confirmed_at: account.email_confirmed_at.map(to_millis),
            created_at: to_millis(account.created_at),
            updated_at: to_millis(account.updated_at),
            last_sign_in_at: account.last_sign_in_at.map(to_millis),
            profile: to_json(&account.profile)?,
            display_name: account.display_name.clone(),
            email_proven_at: account.email_proven_at.map(to_millis),
        })
    }

    fn into_domain(self) -> Result<Account, RepoError> {
        Ok(Account {
            id: parse_stored("accounts.id", &self.id, str::parse::<UserId>)?,
            email: parse_stored("accounts.email", &self.email, EmailAddress::parse)?,
            password_hash: self.password_hash,
            email_confirmed_at: from_millis_opt(self.email_confirmed_at)?,
            email_proven_at: from_millis_opt(self.email_proven_at)?,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
            last_sign_in_at: from_millis_opt(self.last_sign_in_at)?,
            display_name: self.display_name,
            profile: from_json("accounts.profile", &self.profile)?,
        })
    }
}

fn load_account(conn: &mut crate::DbConnection, id: &str) -> Result<Option<Account>, RepoError> {
    accounts::table
        .find(id)
        .select(AccountRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an account"))?
        .map(AccountRow::into_domain)
        .transpose()
}

/// [`AccountRepository`] on the `accounts` table.
#[derive(Debug, Clone)]
pub struct DieselAccountRepository {
    db: Db,
}

impl DieselAccountRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

/// Turns "no row changed" into [`RepoError::NotFound`].
const fn found(changed: usize) -> Result<(), RepoError> {
    if changed == 0 {
        Err(RepoError::NotFound)
    } else {
        Ok(())
    }
}

#[async_trait]
impl AccountRepository for DieselAccountRepository {
    async fn create(&self, account: &Account) -> Result<(), RepoError> {
        let row = AccountRow::from_domain(account)?;
        self.db
            .write(move |conn| {
                diesel::insert_into(accounts::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing an account", "email"))?;
                if row.email_proven_at.is_some() {
                    bind_waiting_role(conn, &row.id, &row.email)?;
                }
                Ok(())
            })
            .await
    }

    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<Account>, RepoError> {
        let email = email.as_str().to_owned();
        self.db
            .read(move |conn| {
                accounts::table
                    .filter(accounts::email.eq(email))
                    .select(AccountRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding an account by e-mail"))?
                    .map(AccountRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn get(&self, id: UserId) -> Result<Option<Account>, RepoError> {
        self.db
            .read(move |conn| load_account(conn, &id.to_string()))
            .await
    }

    async fn set_password(
        &self,
        id: UserId,
        password_hash: Option<String>,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                diesel::update(accounts::table.find(id.to_string()))
                    .set((
                        accounts::password_hash.eq(password_hash),
                        accounts::updated_at.eq(to_millis(now)),
                    ))
                    .execute(conn)
                    .map_err(backend("setting a password"))
                    .and_then(found)?;
                match &notice {
                    Some(notice) => outbox_rows::enqueue(conn, std::slice::from_ref(notice), now),
                    None => Ok(()),
                }
            })
            .await
    }

    async fn confirm_email(&self, id: UserId, now: DateTime<Utc>) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                let id = id.to_string();
                let changed = diesel::update(
                    accounts::table
                        .find(&id)
                        .filter(accounts::email_confirmed_at.is_null()),
                )
                .set(accounts::email_confirmed_at.eq(to_millis(now)))
                .execute(conn)
                .map_err(backend("confirming an e-mail"))?;
                if changed > 0 {
                    return Ok(());
                }
                let exists: i64 = accounts::table
                    .find(&id)
                    .count()
                    .get_result(conn)
                    .map_err(backend("reading an account"))?;
                found(usize::from(exists > 0))
            })
            .await
    }

    async fn prove_email(&self, id: UserId, now: DateTime<Utc>) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                let id = id.to_string();
                let email: String = accounts::table
                    .find(&id)
                    .select(accounts::email)
                    .first(conn)
                    .optional()
                    .map_err(backend("reading an account"))?
                    .ok_or(RepoError::NotFound)?;
                let at = to_millis(now);
                diesel::update(
                    accounts::table
                        .find(&id)
                        .filter(accounts::email_proven_at.is_null()),
                )
                .set(accounts::email_proven_at.eq(at))
                .execute(conn)
                .map_err(backend("recording a proven e-mail"))?;
                diesel::update(
                    accounts::table
                        .find(&id)
                        .filter(accounts::email_confirmed_at.is_null()),
                )
                .set(accounts::email_confirmed_at.eq(at))
                .execute(conn)
                .map_err(backend("confirming an e-mail"))?;
                bind_waiting_role(conn, &id, &email)
            })
            .await
    }

    async fn touch_sign_in(&self, id: UserId, now: DateTime<Utc>) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                diesel::update(accounts::table.find(id.to_string()))
                    .set(accounts::last_sign_in_at.eq(to_millis(now)))
                    .execute(conn)
                    .map_err(backend("recording a sign-in"))
                    .and_then(found)
            })
            .await
    }

    async fn update_profile(
        &self,
        id: UserId,
        display_name: Option<String>,
        profile: &Value,
        now: DateTime<Utc>,
    ) -> Result<Account, RepoError> {
        let profile = to_json(profile)?;
        self.db
            .write(move |conn| {
                let id = id.to_string();
                diesel::update(accounts::table.find(&id))
                    .set((
                        accounts::display_name.eq(display_name),
                        accounts::profile.eq(profile),
                        accounts::updated_at.eq(to_millis(now)),
                    ))
                    .execute(conn)
                    .map_err(backend("updating a profile"))
                    .and_then(found)?;
                load_account(conn, &id)?.ok_or(RepoError::NotFound)
            })
            .await
    }

    async fn change_email(
        &self,
        id: UserId,
        email: &EmailAddress,
        proven_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let email = email.as_str().to_owned();
        self.db
            .write(move |conn| {
                let id = id.to_string();
                diesel::update(accounts::table.find(&id))
                    .set((
                        accounts::email.eq(&email),
                        accounts::email_confirmed_at.eq(proven_at.map(to_millis)),
                        accounts::email_proven_at.eq(proven_at.map(to_millis)),
                        accounts::updated_at.eq(to_millis(now)),
                    ))
                    .execute(conn)
                    .map_err(db_error("changing an e-mail", "email"))
                    .and_then(found)?;
                if proven_at.is_some() {
                    bind_waiting_role(conn, &id, &email)?;
                }
                Ok(())
            })
            .await
    }
}
