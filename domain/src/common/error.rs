//! The error every repository port shares.

use std::error::Error as StdError;

/// What a repository can fail with.
///
/// Adapters map unique-constraint violations to [`RepoError::Duplicate`] (naming what was duplicated),
/// a compare-and-set that found another value to [`RepoError::Conflict`], a database that cannot be reached
/// to [`RepoError::Unavailable`], and wrap everything else, with context, in [`RepoError::Backend`]. Nothing
/// is swallowed.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    /// A unique value already exists; the string names it (for example `package_name`).
    #[error("duplicate {0}")]
    Duplicate(&'static str),
    /// The row changed under the caller (for example the status was no longer the expected one).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The row to change does not exist (only for writes; reads return `Option`).
    #[error("not found")]
    NotFound,
    /// The database cannot be reached at the moment (stopped, restarting, unreachable): the call may succeed
    /// when tried again after `retry_after`. The adapter logs the cause once per outage, not with each call.
    #[error("the database is unavailable")]
    Unavailable { retry_after: std::time::Duration },
    /// The database or storage failed; the source chain says why.
    #[error("storage failure: {context}")]
    Backend {
        context: String,
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
}

impl RepoError {
    /// Wraps an infrastructure error with a short description of the operation that failed.
    pub fn backend(context: impl Into<String>, source: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        Self::Backend {
            context: context.into(),
            source: source.into(),
        }
    }
}
