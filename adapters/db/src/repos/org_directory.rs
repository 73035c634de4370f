//! [`DieselMemberDirectory`]: the membership door of every organization-scoped request, one lookup by key
//! (the role, and the organization's second-factor requirement joined on it).

use async_trait::async_trait;
use diesel::prelude::*;
use domain::common::{OrgId, RepoError, UserId};
use domain::orgs::{MemberDirectory, MemberStanding, OrgRole};

use super::orgs::{parse_role, role_in};
use crate::Db;
use crate::connection::on_backend;
use crate::convert::backend;
use crate::schema::{org_members, organizations};

/// [`MemberDirectory`] on `org_members`.
#[derive(Debug, Clone)]
pub struct DieselMemberDirectory {
    db: Db,
}

impl DieselMemberDirectory {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl MemberDirectory for DieselMemberDirectory {
    async fn role_of(&self, org: OrgId, user: UserId) -> Result<Option<OrgRole>, RepoError> {
        // A lookup by key (accepting an invitation, moving an app, the review desk ask it).
        self.db
            .lookup(move |conn| role_in(conn, &org.to_string(), &user.to_string()))
            .await
    }

    async fn standing_of(&self, org: OrgId, user: UserId) -> Result<Option<MemberStanding>, RepoError> {
        // The membership door of every organization-scoped request: one lookup by key, the organization's
        // requirement joined on it.
        self.db
            .lookup(move |conn| {
                let found: Option<(String, bool)> = on_backend!(conn, c => org_members::table
                    .inner_join(organizations::table)
                    .filter(org_members::org_id.eq(org.to_string()))
                    .filter(org_members::user_id.eq(user.to_string()))
                    .select((org_members::role, organizations::require_two_factor))
                    .first::<(String, bool)>(c)
                    .optional())
                .map_err(backend("reading a member's standing"))?;
                found
                    .map(|(role, org_requires_two_factor)| {
                        Ok(MemberStanding {
                            role: parse_role(&role)?,
                            org_requires_two_factor,
                        })
                    })
                    .transpose()
            })
            .await
    }
}
