//! What authorizes a request, kept in memory: a session's live head with its account's platform role and
//! second factors, and for an organization-scoped request the account's role in the organization, its
//! two-factor rule and its apps' revision (what `live_sessions` reads in one statement).
//!
//! On SQLite, memory is trusted while the file's version has not moved ([`watch`]): any commit, by any
//! connection of any process, makes everything forgotten. On PostgreSQL it is kept only while it cannot be
//! stale, on every instance sharing the database, and changes are forgotten one by one:
//! - Every change to the rows it is read from announces itself from the transaction that makes it (the
//!   `live_cache_notice` triggers of the PostgreSQL migrations: `f:<family>`, `u:<user>`, `o:<org>`, `*`;
//!   the tables and their notices are declared once in [`contract`]).
//! - Before a request trusts what is kept, the instance's listening connection makes a *sync round*
//!   ([`listener`]): it notifies its own channel, and PostgreSQL hands a listener every notice committed
//!   before its own transaction before that transaction's answer. So every change committed before the
//!   request arrived — a sign-out on another instance included — is forgotten before the request looks.
//!   The requests waiting meanwhile share one round: under load a round serves many of them.
//! - A value read from the database is kept only if no notice naming it arrived since the round that
//!   preceded the read ([`Ticket`]): a change committed during the read is not kept stale.
//! - When the listening connection fails, everything is forgotten and requests read the database until it
//!   is back.
//!
//! On PostgreSQL the revision of an organization's apps (what tells `GET /api/dev/apps` whether its kept
//! answer is current) is this memory's too: a write to an app announces `a:<org>` from its transaction
//! (migration `2026-11-28-000700_apps_revision_by_notice`), and the organization's revision becomes a new
//! number of this process's [`fresh_revision`] counter, without forgetting any session. An organization with
//! no notice since everything was last forgotten has the number given then. Where memory is not trusted, a
//! revision is a fresh number at every read: nothing kept with it is used again. (Before, every app write
//! updated its organization's row, so that the writes of one organization waited for each other's commits,
//! and forgot every session kept for the organization.) SQLite keeps the revision in the organization's row.

mod contract;
#[cfg(test)]
mod contract_tests;
mod listener;
mod memory;
mod watch;

use domain::identity::models::{LiveSession, LiveSessionInOrg};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use uuid::Uuid;

use self::listener::Listener;
use self::memory::{Kept, Key};
pub(crate) use self::memory::{Notice, Shared, Ticket};
use self::watch::Watch;

/// The numbers given as revisions of organizations' apps on PostgreSQL: increasing, never given twice in a
/// process, so that a revision moves whenever it is given anew and an answer kept with an earlier number is
/// never taken for a later one's.
static REVISIONS: AtomicU64 = AtomicU64::new(1);

/// A revision of an organization's apps never given before in this process (PostgreSQL): where the
/// revision is not known from memory, what is kept with it is never used again.
pub(crate) fn fresh_revision() -> u64 {
    REVISIONS.fetch_add(1, Ordering::Relaxed)
}

/// The cache of one pool (its clones share it): the memory and what keeps it true.
#[derive(Debug, Clone)]
pub(crate) struct LiveCache {
    shared: Arc<Shared>,
    sync: Sync,
}

/// How a request learns that memory holds nothing committed over before it arrived.
#[derive(Debug, Clone)]
enum Sync {
    /// PostgreSQL: a round on the listening connection.
    Listen(Arc<Listener>),
    /// SQLite: the file's version, read on a connection of its own.
    Watch(Arc<Watch>),
}

/// How many requests were answered from memory and how many sync rounds were made ([`crate::PoolStats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Reads answered from memory.
    pub hits: u64,
    /// Sync rounds on the listening connection: one statement each, shared by the requests that waited.
    pub rounds: u64,
}

impl LiveCache {
    /// A cache kept true by a listener on the PostgreSQL database at `url` (connected at first use).
    pub(crate) fn postgres(url: String) -> Self {
        let shared = Arc::new(Shared::default());
        let listener = Arc::new(Listener::new(url, shared.clone()));
        Self {
            shared,
            sync: Sync::Listen(listener),
        }
    }

    /// A cache kept true by watching the version of the SQLite file at `path`.
    pub(crate) fn sqlite(path: String) -> Self {
        Self {
            shared: Arc::new(Shared::default()),
            sync: Sync::Watch(Arc::new(Watch::new(path))),
        }
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.shared.hits.load(Ordering::Relaxed),
            rounds: self.shared.rounds.load(Ordering::Relaxed),
        }
    }

    /// A session's read, from memory when it may be trusted, otherwise from `read` (and then kept).
    pub(crate) async fn session<F>(
        &self,
        family: Uuid,
        read: F,
    ) -> Result<Option<LiveSession>, domain::common::RepoError>
    where
        F: Future<Output = Result<Option<LiveSession>, domain::common::RepoError>>,
    {
        let key = Key { family, org: None };
        let (found, _) = self
            .through(key, async { read.await.map(|found| found.map(Kept::Session)) })
            .await?;
        Ok(found.and_then(|kept| match kept {
            Kept::Session(live) => Some(live),
            Kept::InOrg(_) => None,
        }))
    }

    /// A session's read with an organization, as [`Self::session`].
    pub(crate) async fn in_org<F>(
        &self,
        family: Uuid,
        org: Uuid,
        read: F,
    ) -> Result<Option<LiveSessionInOrg>, domain::common::RepoError>
    where
        F: Future<Output = Result<Option<LiveSessionInOrg>, domain::common::RepoError>>,
    {
        let key = Key {
            family,
            org: Some(org),
        };
        let (found, trusted) = self
            .through(key, async { read.await.map(|found| found.map(Kept::InOrg)) })
            .await?;
        Ok(found.and_then(|kept| match kept {
            Kept::InOrg(mut found) => {
                // PostgreSQL: the revision is memory's (a fresh number, from the read, when memory is not
                // trusted). Read after the round, before the caller reads the apps: every write whose notice
                // it reflects committed before that read.
                if trusted && matches!(self.sync, Sync::Listen(_)) {
                    found.apps_revision = self.shared.memory().apps_revision(org);
                }
                Some(found)
            }
            Kept::Session(_) => None,
        }))
    }

    /// PostgreSQL: the revision of `org`'s apps, once memory is known to hold every notice committed before
    /// the call; `None` on SQLite (the organization's row has it) and when memory is not trusted.
    pub(crate) async fn apps_revision(&self, org: Uuid) -> Option<u64> {
        match &self.sync {
            Sync::Listen(listener) => {
                listener.sync().await?;
                Some(self.shared.memory().apps_revision(org))
            }
            Sync::Watch(_) => None,
        }
    }

    /// The value of `key`, from memory or `read`, and whether memory was trusted (a sync round ended after
    /// the call began).
    async fn through<F>(&self, key: Key, read: F) -> Result<(Option<Kept>, bool), domain::common::RepoError>
    where
        F: Future<Output = Result<Option<Kept>, domain::common::RepoError>>,
    {
        let ticket = match &self.sync {
            Sync::Listen(listener) => listener.sync().await,
            Sync::Watch(watch) => watch.sync(&self.shared),
        };
        let Some(ticket) = ticket else {
            // Not known to be true: the database answers, and nothing is kept.
            return Ok((read.await?, false));
        };
        if let Some(kept) = self.shared.get(&key) {
            return Ok((Some(kept), true));
        }
        let found = read.await?;
        if let Some(kept) = &found {
            self.shared.put(ticket, key, kept.clone());
        }
        Ok((found, true))
    }
}

#[cfg(test)]
mod tests;
