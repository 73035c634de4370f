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
//! A new connection first proves that a notice sent from another connection reaches it ([`probe`]). Behind
//! a pooler that hands each transaction to any server connection (PgBouncer's transaction mode) the
//! `LISTEN` stays with whichever server connection ran it, and notices go to whichever client that server
//! connection serves when they arrive, or are dropped while it is idle. A round's own notice may still come
//! back, when the pooler happens to hand the listener the same server connection again, so rounds alone
//! would not tell; the probe does, and the cache then stays untrusted until the process restarts.

use super::{Notice, Shared, Ticket};
use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use diesel::sql_types::Text;
use diesel::{Connection, RunQueryDsl};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

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
/// How the notice of a new connection's [`probe`] begins.
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
    /// The URL leads through a pooler that does not keep a connection's `LISTEN` ([`probe`]): no more
    /// attempts until the process restarts.
    given_up: bool,
}

struct Open {
    conn: PgConnection,
    /// Rounds made on this connection (each round's own notice carries its number), and those completed.
    rounds: u64,
    completed: u64,
    /// This schema's channel (what the triggers notify on).
    channel: String,
    /// Its server process: a round's own notice comes from it (other instances number their rounds too).
    pid: i32,
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

/// What the listening connection adds to the pool's URL, unless the URL sets it: a link that stops answering
/// (a half-open TCP connection, a host gone) is given up in seconds rather than after the system's TCP
/// timeouts (minutes), so that the cache is forgotten and the connection made again.
const LINK_TIMEOUTS: [(&str, &str); 6] = [
    ("connect_timeout", "5"),
    ("keepalives", "1"),
    ("keepalives_idle", "5"),
    ("keepalives_interval", "2"),
    ("keepalives_count", "2"),
    // Data sent and not acknowledged for this long (in milliseconds) ends the connection.
    ("tcp_user_timeout", "5000"),
];

/// `url` (a `postgres://` URL) with [`LINK_TIMEOUTS`] added to its query.
pub(super) fn listening_url(url: &str) -> String {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let set: Vec<&str> = query
        .split('&')
        .filter_map(|pair| pair.split('=').next())
        .collect();
    let mut pairs: Vec<String> = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(str::to_owned)
        .collect();
    for (key, value) in LINK_TIMEOUTS {
        if !set.contains(&key) {
            pairs.push(format!("{key}={value}"));
        }
    }
    format!("{base}?{}", pairs.join("&"))
}

#[derive(diesel::QueryableByName)]
struct Channel {
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    name: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    quoted: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    pid: i32,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    schema: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    single: bool,
}

/// Why no listening connection was opened.
enum Refused {
    /// It could not be opened, or failed (an unreachable server, say): tried again shortly.
    Failed(String),
    /// A notice from another connection did not reach it ([`probe`]).
    Pooled,
}

impl From<String> for Refused {
    fn from(value: String) -> Self {
        Self::Failed(value)
    }
}

fn open(url: &str) -> Result<Open, Refused> {
    let url = listening_url(url);
    let mut conn = PgConnection::establish(&url).map_err(|e| e.to_string())?;
    // A round's own notice needs no durable commit.
    // A stalled server must not hold a round for ever (requests stop waiting after `ROUND_WAIT` anyway).
    conn.batch_execute("SET synchronous_commit = off; SET statement_timeout = '5s'")
        .map_err(|e| e.to_string())?;
    let channel: Channel = diesel::sql_query(super::contract::channel_query())
        .get_result(&mut conn)
        .map_err(|e| e.to_string())?;
    let (Some(name), Some(quoted), Some(schema), true) =
        (channel.name, channel.quoted, channel.schema, channel.single)
    else {
        return Err(Refused::Failed(
            "the tables the session cache watches are not all in one schema of the search path".to_owned(),
        ));
    };
    // Named after its schema, so that an operator (or a test) can tell whose it is.
    diesel::sql_query("SELECT set_config('application_name', left('portal live cache ' || $1, 63), false)")
        .bind::<Text, _>(&schema)
        .execute(&mut conn)
        .map_err(|e| e.to_string())?;
    conn.batch_execute(&format!("LISTEN {quoted}"))
        .map_err(|e| e.to_string())?;
    let mut open = Open {
        conn,
        rounds: 0,
        completed: 0,
        channel: name,
        pid: channel.pid,
    };
    if !probe(&url, &mut open)? {
        // Behind a transaction pooler this reaches whichever server connection the pooler picks: at best
        // the one that listens, which would otherwise pass notices on to whichever client it serves next.
        let _ = open.conn.batch_execute("UNLISTEN *");
        return Err(Refused::Pooled);
    }
    Ok(open)
}

/// Whether a notice sent from another connection to `url`, committed before a statement of the listening
/// connection begins, has reached it when that statement answers, as every trigger's notice must. Notices
/// received meanwhile are dropped: memory is forgotten once the connection is made anyway.
fn probe(url: &str, open: &mut Open) -> Result<bool, String> {
    let payload = format!("{PROBE_PREFIX}{}", uuid::Uuid::new_v4());
    let mut other = PgConnection::establish(url).map_err(|e| e.to_string())?;
    diesel::sql_query("SELECT pg_notify($1, $2)")
        .bind::<Text, _>(&open.channel)
        .bind::<Text, _>(&payload)
        .execute(&mut other)
        .map_err(|e| e.to_string())?;
    drop(other);
    // A statement of the listening connection after the probe's commit: a round of its own, which reads the
    // server's queue of notices up to its own before it answers.
    diesel::sql_query("SELECT pg_notify($1, $2)")
        .bind::<Text, _>(&open.channel)
        .bind::<Text, _>(format!("{ROUND_PREFIX}0"))
        .execute(&mut open.conn)
        .map_err(|e| e.to_string())?;
    let mut heard = false;
    for received in open.conn.notifications_iter() {
        let received = received.map_err(|e| e.to_string())?;
        heard |= received.channel == open.channel && received.payload == payload;
    }
    Ok(heard)
}

/// The notices received on the connection, read without waiting, and the payloads of rounds' own notices.
fn notices(open: &mut Open) -> Result<(Vec<Notice>, Vec<String>), String> {
    let (mut notices, mut rounds) = (Vec::new(), Vec::new());
    for received in open.conn.notifications_iter() {
        let received = received.map_err(|e| e.to_string())?;
        if received.channel != open.channel {
            continue;
        }
        if received.payload.starts_with(ROUND_PREFIX) {
            if received.process_id == open.pid {
                rounds.push(received.payload);
            }
        } else if received.payload.starts_with(PROBE_PREFIX) {
            // Another instance's new listening connection proving itself: nothing changed.
        } else {
            notices.push(Notice::parse(&received.payload));
        }
    }
    Ok((notices, rounds))
}
