//! Links from accounts to external OpenID Connect identities (`identities`): which provider's subject signs
//! in as which account.

use async_trait::async_trait;
use diesel::prelude::*;
use domain::common::{EmailAddress, RepoError, UserId};
use domain::identity::models::ExternalIdentity;
use domain::identity::ports::IdentityLinkRepository;

use crate::Db;
use crate::convert::{backend, db_error, from_millis, parse_stored, to_millis};
use crate::schema::identities;

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = identities)]
struct IdentityRow {
    issuer: String,
    subject: String,
    user_id: String,
    email: Option<String>,
    email_verified: bool,
    created_at: i64,
    provider: String,
}

impl IdentityRow {
    fn from_domain(identity: &ExternalIdentity) -> Self {
        Self {
            issuer: identity.issuer.clone(),
            subject: identity.subject.clone(),
            user_id: identity.user_id.to_string(),
            email: identity.email.as_ref().map(|e| e.as_str().to_owned()),
            email_verified: identity.email_verified,
            created_at: to_millis(identity.linked_at),
            provider: identity.provider.clone(),
        }
    }

    fn into_domain(self) -> Result<ExternalIdentity, RepoError> {
        Ok(ExternalIdentity {
            issuer: self.issuer,
            subject: self.subject,
            provider: self.provider,
            user_id: parse_stored("identities.user_id", &self.user_id, str::parse::<UserId>)?,
            email: self
                .email
                .map(|e| parse_stored("identities.email", &e, EmailAddress::parse))
                .transpose()?,
            email_verified: self.email_verified,
            linked_at: from_millis(self.created_at)?,
        })
    }
}

/// [`IdentityLinkRepository`] on the `identities` table (`linked_at` is stored as `created_at`).
#[derive(Debug, Clone)]
pub struct DieselIdentityLinkRepository {
    db: Db,
}

impl DieselIdentityLinkRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl IdentityLinkRepository for DieselIdentityLinkRepository {
    async fn find(&self, issuer: &str, subject: &str) -> Result<Option<ExternalIdentity>, RepoError> {
        let (issuer, subject) = (issuer.to_owned(), subject.to_owned());
        self.db
            .read(move |conn| {
                identities::table
                    .find((issuer, subject))
                    .select(IdentityRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding a provider identity"))?
                    .map(IdentityRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn link(&self, identity: &ExternalIdentity) -> Result<(), RepoError> {
        let row = IdentityRow::from_domain(identity);
        self.db
            .write(move |conn| {
                diesel::insert_into(identities::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("linking a provider identity", "identity"))
                    .map(drop)
            })
            .await
    }

    async fn list_for_user(&self, user: UserId) -> Result<Vec<ExternalIdentity>, RepoError> {
        self.db
            .read(move |conn| {
                identities::table
                    .filter(identities::user_id.eq(user.to_string()))
                    .order((
                        identities::created_at.asc(),
                        identities::issuer.asc(),
                        identities::subject.asc(),
                    ))
                    .select(IdentityRow::as_select())
                    .load(conn)
                    .map_err(backend("listing provider identities"))?
                    .into_iter()
                    .map(IdentityRow::into_domain)
                    .collect()
            })
            .await
    }
}
