//! Whether this instance can serve requests now: the readiness a load balancer asks `/readyz` for.

use async_trait::async_trait;

use super::RepoError;

/// The stores every request needs (the database). Liveness (`/healthz`) needs none of them.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Readiness: Send + Sync {
    /// Answers once the store has answered a trivial query.
    ///
    /// # Errors
    /// [`RepoError::Unavailable`] while the database cannot be reached; [`RepoError::Backend`] when it
    /// answers with an error.
    async fn check(&self) -> Result<(), RepoError>;
}
