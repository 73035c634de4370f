//! The listening connection of a [`super::LiveCache`]: its own PostgreSQL connection on its own thread,
//! which applies the notices of the `live_cache_notice` triggers and makes the sync rounds requests wait
//! for.
//!
//! A round is `SELECT pg_notify(<own channel>, 'round <n>')`: PostgreSQL sends a listening session every notice
//! committed before its transaction (notices are queued in commit order, and a session reads the queue up
//! to its own notice before it answers), so when the statement has answered and the notices received are
//! applied, nothing committed before the round began is still kept. Requests that arrive while a round
//! runs wait for the next one; all of them share it.
//!
//! A new connection first proves that a notice sent from another connection reaches it
//! ([`connection::probe`]). Behind a pooler that hands each transaction to any server connection
//! (PgBouncer's transaction mode) the `LISTEN` stays with whichever server connection ran it, and notices
//! go to whichever client that server connection serves when they arrive, or are dropped while it is idle.
//! A round's own notice may still come back, when the pooler happens to hand the listener the same server
//! connection again, so rounds alone would not tell; the probe does, and the cache then stays untrusted
//! until the process restarts.

mod connection;

#[cfg(test)]
pub(super) use self::connection::listening_url;

use super::{Shared, Ticket};
use diesel::RunQueryDsl;
use diesel::sql_types::Text;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

use self::connection::{Open, Refused, notices, open};

/// How often notices are read while no request waits (so that the server's queue of them never fills),
/// and how often the thread looks whether its pool is gone.
const IDLE_READ: Duration = Duration::from_millis(250);
/// How long after a failed connection attempt the next one waits; requests meanwhile read the database.
const RECONNECT_PAUSE: Duration = Duration::from_secs(1);
/// How long after a connection that never completed a round the next one waits.
const UNTRUSTED_PAUSE: Duration = Duration::from_secs(30);
/// The longest a request waits for a round before it reads the database instead (a listening connection
/// that hangs must not hold requests).
const ROUND_WAIT: Duration = Duration::from_secs(2);
/// How a round's own notice begins (the triggers' notices begin with a letter and a colon).
const ROUND_PREFIX: &str = "round ";
/// How the notice of a new connection's [`connection::probe`] begins.
const PROBE_PREFIX: &str = "probe ";

/// Requests waiting for the next round.
#[derive(Debug, Default)]
struct Waiting {
    waiters: Vec<oneshot::Sender<Option<Ticket>>>,
    /// When the round under way began (none runs when `None`).
    round_began: Option<Instant>,
    /// When the first of the requests waiting for the next round began to wait: that round counts as begun
    /// then, so that it is overdue as soon as that request stops waiting, however late the thread took it.
    first_waiting_since: Option<Instant>,
    /// The pool is gone: the thread ends.
    closed: bool,
}

impl Waiting {
    /// A round has run longer than a request waits: the listening connection hangs (a half-open link, a
    /// stalled server) until its timeouts end it. Requests meanwhile read the database at once instead of
    /// each waiting [`ROUND_WAIT`] in vain.
    fn overdue(&self, now: Instant) -> bool {
        self.round_began
            .is_some_and(|began| now.saturating_duration_since(began) >= ROUND_WAIT)
    }
}

#[derive(Debug, Default)]
struct Queue {
    waiting: Mutex<Waiting>,
    wake: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Starts its thread at first use; the thread ends when the listener (the last clone of its pool) is
/// dropped.
#[derive(Debug)]
pub(crate) struct Listener {
    url: String,
    shared: Arc<Shared>,
    queue: Arc<Queue>,
    started: Once,
}

impl Listener {
    pub(super) fn new(url: String, shared: Arc<Shared>) -> Self {
        Self {
            url,
            shared,
            queue: Arc::new(Queue::default()),
            started: Once::new(),
        }
    }

    /// Waits for a round that began after this call; `None` when there was none (the listening connection
    /// is down or hangs): what is kept must not be trusted then.
    pub(super) async fn sync(&self) -> Option<Ticket> {
        self.started.call_once(|| self.start());
        let (sender, receiver) = oneshot::channel();
        {
            let mut waiting = self.queue.lock();
            if waiting.closed || waiting.overdue(Instant::now()) {
                return None;
            }
            if waiting.waiters.is_empty() {
                waiting.first_waiting_since = Some(Instant::now());
            }
            waiting.waiters.push(sender);
        }
        self.queue.wake.notify_one();
        tokio::time::timeout(ROUND_WAIT, receiver)
            .await
            .ok()
            .and_then(Result::ok)
            .flatten()
    }

    fn start(&self) {
        let (url, shared, queue) = (self.url.clone(), self.shared.clone(), self.queue.clone());
        let started = std::thread::Builder::new()
            .name("live-cache".to_owned())
            .spawn(move || run(&url, &shared, &queue));
        if let Err(error) = started {
            // Every sync then times out: requests read the database, as without a cache.
            tracing::error!(%error, "could not start the session cache's listener");
            self.queue.lock().closed = true;
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.wake.notify_one();
    }
}

/// The thread: rounds for waiting requests, notices read in between.
fn run(url: &str, shared: &Shared, queue: &Queue) {
    let mut link = Link::default();
    loop {
        let batch = {
            let mut waiting = queue.lock();
            loop {
                if waiting.closed {
                    return;
                }
                if !waiting.waiters.is_empty() {
                    waiting.round_began =
                        Some(waiting.first_waiting_since.take().unwrap_or_else(Instant::now));
                    break std::mem::take(&mut waiting.waiters);
                }
                let (guard, timeout) = queue
                    .wake
                    .wait_timeout(waiting, IDLE_READ)
                    .unwrap_or_else(PoisonError::into_inner);
                waiting = guard;
                if timeout.timed_out() && waiting.waiters.is_empty() && !waiting.closed {
                    drop(waiting);
                    link.read_between_rounds(shared);
                    waiting = queue.lock();
                }
            }
        };
        let ticket = link.round(url, shared);
        queue.lock().round_began = None;
        for waiter in batch {
            // A request that stopped waiting (timed out) is simply not told.
            let _ = waiter.send(ticket);
        }
    }
}

/// The listening connection, when there is one.
#[derive(Default)]
struct Link {
    open: Option<Open>,
    /// No new connection before this instant (the last attempt failed).
    paused_until: Option<Instant>,
    /// The URL leads through a pooler that does not keep a connection's `LISTEN` ([`connection::probe`]): no
    /// more attempts until the process restarts.
    given_up: bool,
}

impl Link {
    /// One round: answers the ticket of the requests that waited for it, `None` without a connection.
    fn round(&mut self, url: &str, shared: &Shared) -> Option<Ticket> {
        if self.open.is_none() {
            self.connect(url)?;
            // What was committed while there was no connection announced itself to nobody; and the apps
            // revisions given meanwhile (fresh numbers, to untrusted reads) must not be ahead of memory's.
            shared.forget_everything();
        }
        let open = self.open.as_mut()?;
        open.rounds += 1;
        let own = format!("{ROUND_PREFIX}{}", open.rounds);
        let outcome = diesel::sql_query("SELECT pg_notify($1, $2)")
            .bind::<Text, _>(&open.channel)
            .bind::<Text, _>(&own)
            .execute(&mut open.conn)
            .map_err(|e| e.to_string())
            .and_then(|_| notices(open))
            .and_then(|(notices, rounds)| {
                // Its own notice proves the connection still listens (a pooler in transaction mode that hands
                // the round to another server connection loses it; the probe at connection time catches the
                // case where it happens to come back).
                if rounds.contains(&own) {
                    Ok(notices)
                } else {
                    Err(
                        "the listening connection did not receive its own notice (is it behind a \
                         transaction pooler?)"
                            .to_owned(),
                    )
                }
            });
        match outcome {
            Ok(notices) => {
                open.completed += 1;
                Some(shared.round_done(notices))
            }
            Err(error) => {
                self.lost(shared, &error);
                None
            }
        }
    }

    /// Applies the notices received since the last round, without a statement.
    fn read_between_rounds(&mut self, shared: &Shared) {
        let Some(open) = self.open.as_mut() else { return };
        match notices(open) {
            Ok((notices, _)) => shared.apply(notices),
            Err(error) => self.lost(shared, &error),
        }
    }

    fn lost(&mut self, shared: &Shared, error: &str) {
        // Notices may be missed from here on: nothing kept can be trusted.
        shared.forget_everything();
        // One that never completed a round (behind a transaction pooler, say) would fail the same way again:
        // not at every request.
        if self.open.take().is_some_and(|open| open.completed == 0) {
            self.paused_until = Some(Instant::now() + UNTRUSTED_PAUSE);
        }
        tracing::warn!(
            error,
            "the session cache's listening connection failed; reading the database until it is back"
        );
    }

    fn connect(&mut self, url: &str) -> Option<()> {
        if self.given_up || self.paused_until.is_some_and(|until| Instant::now() < until) {
            return None;
        }
        match open(url) {
            Ok(open) => {
                self.open = Some(open);
                self.paused_until = None;
                Some(())
            }
            Err(Refused::Pooled) => {
                tracing::error!(
                    "the session cache's listening connection does not hear notices sent from other \
                     connections: it goes through a pooler in transaction mode. Every request reads the \
                     database until the instance restarts; set PORTAL_DATABASE_LISTEN_URL to a URL that \
                     reaches PostgreSQL directly or through a pooler in session mode (README \"Behind a \
                     connection pooler\")"
                );
                self.given_up = true;
                None
            }
            Err(Refused::Failed(error)) => {
                tracing::warn!(%error, "the session cache could not listen for changes; reading the database");
                self.paused_until = Some(Instant::now() + RECONNECT_PAUSE);
                None
            }
        }
    }
}
