//! Image rows (`images`): who uploaded what, for which organization. The bytes live in the image store.

use super::audit::record_and_queue_events;
use async_trait::async_trait;
use diesel::prelude::*;
use domain::apps::PackageName;
use domain::audit::AuditEntry;
use domain::common::{ImageId, OrgId, RepoError, UserId};
use domain::media::{ImageMeta, ImageRepository};

use crate::convert::{backend, db_error, from_millis, parse_stored, to_millis};
use crate::schema::images;
use crate::{Db, DbConnection};

/// One row of `images`.
#[derive(Debug, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = images)]
struct ImageRow {
    id: String,
    org_id: String,
    uploaded_by: String,
    content_type: String,
    size: i64,
    app_package: Option<String>,
    created_at: i64,
}

impl ImageRow {
    fn from_meta(image: &ImageMeta) -> Result<Self, RepoError> {
        Ok(Self {
            id: image.id.to_string(),
            org_id: image.org_id.to_string(),
            uploaded_by: image.uploaded_by.to_string(),
            content_type: image.content_type.clone(),
            size: i64::try_from(image.size).map_err(|e| RepoError::backend("storing an image's size", e))?,
            app_package: image.app_package.as_ref().map(|p| p.as_str().to_owned()),
            created_at: to_millis(image.created_at),
        })
    }

    fn into_meta(self) -> Result<ImageMeta, RepoError> {
        Ok(ImageMeta {
            id: parse_stored("images.id", &self.id, str::parse::<ImageId>)?,
            org_id: parse_stored("images.org_id", &self.org_id, str::parse::<OrgId>)?,
            uploaded_by: parse_stored("images.uploaded_by", &self.uploaded_by, str::parse::<UserId>)?,
            content_type: self.content_type,
            size: u64::try_from(self.size)
                .map_err(|e| RepoError::backend("reading the column images.size", e))?,
            created_at: from_millis(self.created_at)?,
            app_package: self
                .app_package
                .as_deref()
                .map(|text| parse_stored("images.app_package", text, PackageName::parse))
                .transpose()?,
        })
    }
}

fn insert_row(conn: &mut DbConnection, row: &ImageRow) -> Result<(), RepoError> {
    diesel::insert_into(images::table)
        .values(row)
        .execute(conn)
        .map_err(db_error("storing an image", "image_id"))?;
    Ok(())
}

/// Removes the organization's image row; [`RepoError::NotFound`] when it has none by that id.
fn delete_in_org(conn: &mut DbConnection, org: &str, id: &str) -> Result<(), RepoError> {
    let deleted = diesel::delete(
        images::table
            .filter(images::id.eq(id))
            .filter(images::org_id.eq(org)),
    )
    .execute(conn)
    .map_err(backend("deleting an image"))?;
    if deleted == 0 {
        Err(RepoError::NotFound)
    } else {
        Ok(())
    }
}

/// Stores image rows.
#[derive(Debug, Clone)]
pub struct DieselImageRepository {
    db: Db,
}

impl DieselImageRepository {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl ImageRepository for DieselImageRepository {
    async fn insert(&self, image: &ImageMeta, audit: &AuditEntry) -> Result<(), RepoError> {
        let (row, audit) = (ImageRow::from_meta(image)?, audit.clone());
        self.db
            .write(move |conn| {
                insert_row(conn, &row)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn get(&self, org: OrgId, id: ImageId) -> Result<Option<ImageMeta>, RepoError> {
        self.db
            .read(move |conn| {
                images::table
                    .filter(images::id.eq(id.to_string()))
                    .filter(images::org_id.eq(org.to_string()))
                    .select(ImageRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading an image"))?
                    .map(ImageRow::into_meta)
                    .transpose()
            })
            .await
    }

    async fn get_for_delivery(&self, id: ImageId) -> Result<Option<ImageMeta>, RepoError> {
        self.db
            .read(move |conn| {
                images::table
                    .filter(images::id.eq(id.to_string()))
                    .select(ImageRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading an image for delivery"))?
                    .map(ImageRow::into_meta)
                    .transpose()
            })
            .await
    }

    async fn replace(
        &self,
        org: OrgId,
        old: ImageId,
        new: &ImageMeta,
        audit: &[AuditEntry],
    ) -> Result<(), RepoError> {
        let (row, audit) = (ImageRow::from_meta(new)?, audit.to_vec());
        self.db
            .write(move |conn| {
                delete_in_org(conn, &org.to_string(), &old.to_string())?;
                insert_row(conn, &row)?;
                record_and_queue_events(conn, &audit)
            })
            .await
    }

    async fn delete(&self, org: OrgId, id: ImageId, audit: &AuditEntry) -> Result<(), RepoError> {
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                delete_in_org(conn, &org.to_string(), &id.to_string())?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn remove_unreferenced(
        &self,
        cutoff: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> Result<Vec<ImageMeta>, RepoError> {
        // A reference is an app's logo URL or an organization's logo that names the image's id (a UUID:
        // no LIKE wildcard in it). One statement: an image referred to meanwhile is not removed.
        const REMOVE: &str = "DELETE FROM images WHERE id IN (\
            SELECT i.id FROM images i WHERE i.created_at < {cutoff} \
            AND NOT EXISTS (SELECT 1 FROM apps a WHERE a.logo_url LIKE '%' || i.id || '%') \
            AND NOT EXISTS (SELECT 1 FROM organizations o WHERE o.logo LIKE '%' || i.id || '%') \
            ORDER BY i.created_at, i.id LIMIT {limit}) \
            RETURNING id, org_id, uploaded_by, content_type, size, app_package, created_at";
        let cutoff = to_millis(cutoff);
        self.db
            .write(move |conn| {
                let statement = |placeholders: (&str, &str)| {
                    REMOVE
                        .replace("{cutoff}", placeholders.0)
                        .replace("{limit}", placeholders.1)
                };
                let limit = i64::from(limit);
                let rows: Vec<ImageRow> = match conn {
                    DbConnection::Sqlite(c) => diesel::sql_query(statement(("?", "?")))
                        .bind::<diesel::sql_types::BigInt, _>(cutoff)
                        .bind::<diesel::sql_types::BigInt, _>(limit)
                        .load(c),
                    DbConnection::Postgres(c) => diesel::sql_query(statement(("$1", "$2")))
                        .bind::<diesel::sql_types::BigInt, _>(cutoff)
                        .bind::<diesel::sql_types::BigInt, _>(limit)
                        .load(c),
                }
                .map_err(backend("removing unreferenced images"))?;
                rows.into_iter().map(ImageRow::into_meta).collect()
            })
            .await
    }

    async fn total_size(&self, org: OrgId) -> Result<u64, RepoError> {
        self.db
            .read(move |conn| {
                // Summed here rather than with SUM(), whose type differs between the two databases.
                let sizes: Vec<i64> = images::table
                    .filter(images::org_id.eq(org.to_string()))
                    .select(images::size)
                    .load(conn)
                    .map_err(backend("adding up an organization's image sizes"))?;
                Ok(sizes
                    .into_iter()
                    .map(|size| u64::try_from(size).unwrap_or(0))
                    .sum())
            })
            .await
    }

    async fn list_for_app(&self, org: OrgId, package: &PackageName) -> Result<Vec<ImageMeta>, RepoError> {
        let package = package.as_str().to_owned();
        self.db
            .read(move |conn| {
                images::table
                    .filter(images::org_id.eq(org.to_string()))
                    .filter(images::app_package.eq(&package))
                    .order((images::created_at.asc(), images::id.asc()))
                    .select(ImageRow::as_select())
                    .load(conn)
                    .map_err(backend("listing an app's images"))?
                    .into_iter()
                    .map(ImageRow::into_meta)
                    .collect()
            })
            .await
    }
}
