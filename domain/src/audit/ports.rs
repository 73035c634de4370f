//! The audit log's port. Entries are appended by the repository that writes the change they record, inside
//! that change's transaction (each write method of a repository takes the entry to append); this port only
//! reads them and removes old ones. No method edits an entry.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{AuditCursor, AuditFilter, AuditPage, AuditScope};
use crate::common::RepoError;

/// Reads the audit log and applies its retention.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AuditLog: Send + Sync {
    /// At most `limit` entries of `scope` that match `filter`, newest first (by time, then id), starting
    /// just after `after`; `next` is set when more entries follow.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list(
        &self,
        scope: AuditScope,
        filter: &AuditFilter,
        after: Option<AuditCursor>,
        limit: u32,
    ) -> Result<AuditPage, RepoError>;

    /// Deletes at most `batch` of the entries made before `before`, oldest first, in one short transaction,
    /// and answers how many it deleted (fewer than `batch`: none older is left).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn delete_older_than(&self, before: DateTime<Utc>, batch: u32) -> Result<u64, RepoError>;
}
