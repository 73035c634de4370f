//! Consistent copies of an SQLite database taken while the server writes (`app-server backup`), and the
//! integrity check of a copy.

use super::{Db, DbConnection, DbError, Target, parse_url};
use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, QueryableByName, RunQueryDsl};
use std::path::{Path, PathBuf};

#[derive(QueryableByName)]
struct IntegrityRow {
    #[diesel(sql_type = Text)]
    integrity_check: String,
}

/// The SQLite file a `DATABASE_URL` names; `None` for PostgreSQL.
///
/// # Errors
/// As [`Db::connect`] for a URL that names no database.
pub fn sqlite_file(url: &str) -> Result<Option<PathBuf>, DbError> {
    Ok(match parse_url(url)? {
        Target::Sqlite(path) => Some(PathBuf::from(path)),
        Target::Postgres(_) => None,
    })
}

/// Runs `PRAGMA integrity_check` on the SQLite file at `path`.
///
/// # Errors
/// [`DbError::Backup`] with what the check found, or why the file could not be read.
pub fn sqlite_integrity_check(path: &Path) -> Result<(), DbError> {
    let shown = path.display();
    let mut conn = SqliteConnection::establish(&format!("file:{}?mode=ro", path.display()))
        .map_err(|e| DbError::Backup(format!("could not open {shown}: {e}")))?;
    let rows: Vec<IntegrityRow> = diesel::sql_query("PRAGMA integrity_check")
        .load(&mut conn)
        .map_err(|e| DbError::Backup(format!("could not check {shown}: {e}")))?;
    let found: Vec<String> = rows.into_iter().map(|row| row.integrity_check).collect();
    if found == ["ok"] {
        Ok(())
    } else {
        Err(DbError::Backup(format!(
            "{shown} fails PRAGMA integrity_check: {}",
            found.join("; ")
        )))
    }
}

impl Db {
    /// Writes a consistent copy of the SQLite database to `dest` (which must not exist) with `VACUUM INTO`:
    /// one read transaction, so the copy holds every transaction committed before it began and none after,
    /// while the server goes on reading and writing.
    ///
    /// # Errors
    /// [`DbError::Backup`] on PostgreSQL (use `pg_dump`), when `dest` exists or cannot be written.
    pub fn sqlite_snapshot(&self, dest: &Path) -> Result<(), DbError> {
        let dest_text = dest
            .to_str()
            .ok_or_else(|| DbError::Backup(format!("{} is not a UTF-8 path", dest.display())))?;
        let mut conn = self.pool.get()?;
        match &mut *conn {
            DbConnection::Sqlite(c) => diesel::sql_query("VACUUM INTO ?")
                .bind::<Text, _>(dest_text)
                .execute(c)
                .map(|_| ())
                .map_err(|e| DbError::Backup(format!("could not copy the database to {dest_text}: {e}"))),
            DbConnection::Postgres(_) => Err(DbError::Backup(
                "a PostgreSQL database is backed up with pg_dump".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_holds_what_was_committed_and_passes_the_integrity_check() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("portal.db").display());
        let db = Db::connect_for_command(&url).expect("open");
        db.run_migrations().expect("migrate");
        let mut conn = db.pool.get().expect("connection");
        diesel::sql_query(
            "INSERT INTO server_secrets (name, value, created_at) VALUES ('backup-test', 'kept', 0)",
        )
        .execute(&mut *conn)
        .expect("a row");
        drop(conn);
        let copy = dir.path().join("copy.db");
        db.sqlite_snapshot(&copy).expect("snapshot");
        sqlite_integrity_check(&copy).expect("the copy is sound");
        let mut copied = SqliteConnection::establish(copy.to_str().expect("utf-8")).expect("open the copy");
        #[derive(QueryableByName)]
        struct Value {
            #[diesel(sql_type = Text)]
            value: String,
        }
        let rows: Vec<Value> =
            diesel::sql_query("SELECT value FROM server_secrets WHERE name = 'backup-test'")
                .load(&mut copied)
                .expect("read the copy");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].value, "kept");
        let again = db
            .sqlite_snapshot(&copy)
            .expect_err("an existing file is not overwritten");
        assert!(again.to_string().contains("copy.db"), "{again}");
    }

    #[test]
    fn a_damaged_file_fails_the_integrity_check() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("not-a-database.db");
        std::fs::write(
            &path,
            b"this is not an SQLite database, only some bytes in a file",
        )
        .expect("write");
        assert!(sqlite_integrity_check(&path).is_err());
    }

    #[test]
    fn the_sqlite_file_is_named_by_the_url_and_postgres_has_none() {
        assert_eq!(
            sqlite_file("sqlite:///var/lib/devportal/portal.db").expect("sqlite"),
            Some(PathBuf::from("/var/lib/devportal/portal.db"))
        );
        assert_eq!(
            sqlite_file("postgres://localhost/portal").expect("postgres"),
            None
        );
    }
}
