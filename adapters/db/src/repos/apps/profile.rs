//! The organization profile (`organizations`: name and contact e-mail) the publishing and review rules read.

use async_trait::async_trait;
use diesel::prelude::*;
use domain::apps::ports::{OrgContact, OrgProfileLookup};
use domain::common::{EmailAddress, OrgId, RepoError};

use crate::Db;
use crate::convert::{backend, parse_stored};
use crate::schema::organizations;

/// Reads an organization's name and contact e-mail for the publishing and review rules.
#[derive(Debug, Clone)]
pub struct DieselOrgProfileLookup {
    db: Db,
}

impl DieselOrgProfileLookup {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl OrgProfileLookup for DieselOrgProfileLookup {
    async fn profile(&self, org: OrgId) -> Result<Option<OrgContact>, RepoError> {
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| {
                let row: Option<(String, Option<String>, Option<String>)> = organizations::table
                    .filter(organizations::id.eq(org.to_string()))
                    .select((
                        organizations::name,
                        organizations::contact_email,
                        organizations::logo,
                    ))
                    .first(conn)
                    .optional()
                    .map_err(backend("reading an organization's profile"))?;
                let Some((name, contact, logo)) = row else {
                    return Ok(None);
                };
                // A blank stored contact is no contact.
                let contact_email = contact
                    .as_deref()
                    .map(str::trim)
                    .filter(|text| !text.is_empty())
                    .map(|text| parse_stored("organizations.contact_email", text, EmailAddress::parse))
                    .transpose()?;
                Ok(Some(OrgContact {
                    name,
                    contact_email,
                    logo: logo.as_deref().map(|logo| links.delivered(logo)),
                }))
            })
            .await
    }
}
