//! The listening connection itself: opened with timeouts of its own and proven to hear notices sent from
//! other connections ([`probe`]); the notices it received, read.

use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use diesel::sql_types::Text;
use diesel::{Connection, RunQueryDsl};

use super::{PROBE_PREFIX, ROUND_PREFIX};
use crate::live_cache::Notice;

pub(super) struct Open {
    pub(super) conn: PgConnection,
    /// Rounds made on this connection (each round's own notice carries its number), and those completed.
    pub(super) rounds: u64,
    pub(super) completed: u64,
    /// This schema's channel (what the triggers notify on).
    pub(super) channel: String,
    /// Its server process: a round's own notice comes from it (other instances number their rounds too).
    pid: i32,
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
pub(in crate::live_cache) fn listening_url(url: &str) -> String {
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
pub(super) enum Refused {
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

pub(super) fn open(url: &str) -> Result<Open, Refused> {
    let url = listening_url(url);
    let mut conn = PgConnection::establish(&url).map_err(|e| e.to_string())?;
    // A round's own notice needs no durable commit.
    // A stalled server must not hold a round for ever (requests stop waiting after `ROUND_WAIT` anyway).
    conn.batch_execute("SET synchronous_commit = off; SET statement_timeout = '5s'")
        .map_err(|e| e.to_string())?;
    let channel: Channel = diesel::sql_query(crate::live_cache::contract::channel_query())
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
pub(super) fn probe(url: &str, open: &mut Open) -> Result<bool, String> {
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
pub(super) fn notices(open: &mut Open) -> Result<(Vec<Notice>, Vec<String>), String> {
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
