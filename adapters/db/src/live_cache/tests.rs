use super::memory::*;
use super::*;
use chrono::{TimeZone, Utc};
use domain::common::{OrgId, UserId};
use domain::identity::models::{AuthMethod, RefreshToken};

fn live(user: Uuid, family: Uuid) -> LiveSession {
    let at = Utc.with_ymd_and_hms(2026, 11, 28, 12, 0, 0).unwrap();
    let mut head = RefreshToken::start("digest".to_owned(), UserId(user), AuthMethod::Password, at);
    head.family_id = family;
    LiveSession {
        head,
        role: None,
        protection: domain::identity::Protection::default(),
    }
}

fn kept(user: Uuid, family: Uuid) -> Kept {
    Kept::Session(live(user, family))
}

fn key(family: Uuid, org: Option<Uuid>) -> Key {
    Key { family, org }
}

#[test]
fn notices_are_read_from_their_payload() {
    let id = Uuid::new_v4();
    assert_eq!(Notice::parse(&format!("f:{id}")), Notice::Family(id));
    assert_eq!(Notice::parse(&format!("u:{id}")), Notice::User(id));
    assert_eq!(Notice::parse(&format!("o:{id}")), Notice::Org(id));
    assert_eq!(Notice::parse(&format!("a:{id}")), Notice::Apps(id));
    assert_eq!(Notice::parse("*"), Notice::Everything);
    // What cannot be read makes everything forgotten rather than nothing.
    assert_eq!(Notice::parse("u:"), Notice::Everything);
    assert_eq!(Notice::parse("x:whatever"), Notice::Everything);
}

#[test]
fn a_notice_forgets_what_it_names_and_nothing_else() {
    let shared = Shared::default();
    let (ada, bob) = (Uuid::new_v4(), Uuid::new_v4());
    let (ada_family, bob_family) = (Uuid::new_v4(), Uuid::new_v4());
    let (acme, globex) = (OrgId::new().0, OrgId::new().0);
    let ticket = shared.round_done([]);
    let entries = [
        key(ada_family, None),
        key(ada_family, Some(acme)),
        key(bob_family, Some(acme)),
        key(bob_family, Some(globex)),
    ];
    for entry in entries {
        let user = if entry.family == ada_family { ada } else { bob };
        shared.put(ticket, entry, kept(user, entry.family));
    }
    let present = |shared: &Shared| entries.iter().filter(|k| shared.get(k).is_some()).count();
    assert_eq!(present(&shared), 4);

    shared.apply([Notice::Org(globex)]);
    assert!(shared.get(&key(bob_family, Some(globex))).is_none());
    assert_eq!(present(&shared), 3);
    shared.apply([Notice::User(ada)]);
    assert_eq!(present(&shared), 1, "both of Ada's reads are forgotten");
    assert!(shared.get(&key(bob_family, Some(acme))).is_some());
    shared.apply([Notice::Family(bob_family)]);
    assert_eq!(present(&shared), 0);
}

#[test]
fn a_value_read_while_a_notice_naming_it_arrived_is_not_kept() {
    let shared = Shared::default();
    let (user, family, org) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    let entry = key(family, Some(org));
    for notice in [
        Notice::Family(family),
        Notice::User(user),
        Notice::Org(org),
        Notice::Everything,
    ] {
        let ticket = shared.round_done([]);
        // The read ran; a change committed meanwhile was noticed before the value was put.
        shared.apply([notice]);
        shared.put(ticket, entry, kept(user, family));
        assert!(shared.get(&entry).is_none(), "{notice:?}");
    }
    // A notice about others does not stop it.
    let ticket = shared.round_done([]);
    shared.apply([
        Notice::Family(Uuid::new_v4()),
        Notice::Org(Uuid::new_v4()),
        Notice::User(Uuid::new_v4()),
    ]);
    shared.put(ticket, entry, kept(user, family));
    assert!(shared.get(&entry).is_some());
}

#[test]
fn a_read_older_than_the_remembered_notices_is_not_kept() {
    let shared = Shared::default();
    let (user, family) = (Uuid::new_v4(), Uuid::new_v4());
    let ticket = shared.round_done([]);
    for _ in 0..=MAX_NOTICES {
        shared.apply([Notice::Family(Uuid::new_v4())]);
    }
    shared.put(ticket, key(family, None), kept(user, family));
    assert!(shared.get(&key(family, None)).is_none());
    let ticket = shared.round_done([]);
    shared.put(ticket, key(family, None), kept(user, family));
    assert!(shared.get(&key(family, None)).is_some());
}

#[test]
fn hits_and_rounds_are_counted() {
    let cache = LiveCache::postgres("postgres://nobody@127.0.0.1:1/none".to_owned());
    let (user, family) = (Uuid::new_v4(), Uuid::new_v4());
    let ticket = cache.shared.round_done([]);
    cache.shared.put(ticket, key(family, None), kept(user, family));
    assert!(cache.shared.get(&key(family, None)).is_some());
    assert!(cache.shared.get(&key(Uuid::new_v4(), None)).is_none());
    assert_eq!(cache.stats(), CacheStats { hits: 1, rounds: 1 });
}

#[tokio::test]
async fn without_a_listening_connection_nothing_is_trusted_and_the_database_answers() {
    // Nothing listens on port 1: every round fails, and the read is the database's.
    let cache = LiveCache::postgres("postgres://nobody@127.0.0.1:1/none?connect_timeout=1".to_owned());
    let (user, family) = (Uuid::new_v4(), Uuid::new_v4());
    let ticket = cache.shared.round_done([]);
    cache.shared.put(ticket, key(family, None), kept(user, family));
    let mut reads = 0;
    for _ in 0..2 {
        let found = cache
            .session(family, async {
                reads += 1;
                Ok(None)
            })
            .await
            .unwrap();
        assert_eq!(found, None, "the database said the session is over");
    }
    assert_eq!(reads, 2);
}

#[test]
fn a_large_batch_of_notices_forgets_everything_at_once() {
    let shared = Shared::default();
    let (user, family) = (Uuid::new_v4(), Uuid::new_v4());
    let ticket = shared.round_done([]);
    shared.put(ticket, key(family, None), kept(user, family));
    // Notices about others only, but too many to look at one by one (a prune of old sessions).
    shared.apply((0..=MAX_NOTICES_ONE_BY_ONE).map(|_| Notice::Family(Uuid::new_v4())));
    assert!(shared.get(&key(family, None)).is_none());
    // A small batch about others keeps it.
    let ticket = shared.round_done([]);
    shared.put(ticket, key(family, None), kept(user, family));
    shared.apply((0..MAX_NOTICES_ONE_BY_ONE).map(|_| Notice::Family(Uuid::new_v4())));
    assert!(shared.get(&key(family, None)).is_some());
}

#[test]
fn the_listening_connection_gives_up_a_silent_link_in_seconds_unless_the_url_says_otherwise() {
    let url = listener::listening_url("postgres://portal@db.internal/portal");
    assert_eq!(
        url,
        "postgres://portal@db.internal/portal?connect_timeout=5&keepalives=1&keepalives_idle=5\
         &keepalives_interval=2&keepalives_count=2&tcp_user_timeout=5000"
    );
    // The operator's own settings stay, and are not repeated.
    let url = listener::listening_url("postgres://portal@db/portal?sslmode=require&connect_timeout=20");
    assert!(url.starts_with("postgres://portal@db/portal?sslmode=require&connect_timeout=20&keepalives=1"));
    assert_eq!(url.matches("connect_timeout").count(), 1);
}

/// A server that accepts connections and never answers (a stalled server, or a link that went silent).
fn silent_server() -> (std::net::TcpListener, String) {
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("postgres://portal@{}/portal", server.local_addr().unwrap());
    (server, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_listening_connection_hangs_requests_read_the_database_without_waiting_for_it() {
    let (server, url) = silent_server();
    let shared = Arc::new(Shared::default());
    let listener = listener::Listener::new(url, shared.clone());
    // The first request waits for a round that never ends (the connection hangs until its connect timeout,
    // 5 s), and reads the database after `ROUND_WAIT`.
    assert!(listener.sync().await.is_none());
    // The round is overdue now: the next requests do not wait for it at all.
    for request in 0..3 {
        let answered = tokio::time::timeout(std::time::Duration::from_millis(500), listener.sync()).await;
        assert!(
            matches!(answered, Ok(None)),
            "request {request} waited for the hung round"
        );
    }
    assert_eq!(shared.rounds.load(Ordering::Relaxed), 0);
    drop(server);
}

#[test]
fn an_apps_notice_moves_its_organizations_revision_and_forgets_no_session() {
    let shared = Shared::default();
    let (ada, family) = (Uuid::new_v4(), Uuid::new_v4());
    let (acme, globex) = (OrgId::new().0, OrgId::new().0);
    let ticket = shared.round_done([]);
    shared.put(ticket, key(family, Some(acme)), kept(ada, family));
    let revisions = |shared: &Shared| {
        let memory = shared.memory();
        (memory.apps_revision(acme), memory.apps_revision(globex))
    };
    let first = revisions(&shared);
    assert_eq!(revisions(&shared), first, "nothing happened: nothing moves");

    shared.round_done([Notice::Apps(acme)]);
    let second = revisions(&shared);
    assert!(second.0 > first.0);
    assert_eq!(second.1, first.1);
    assert!(
        shared.get(&key(family, Some(acme))).is_some(),
        "the session is still kept"
    );
    // A value read before the apps' notice may still be kept: it does not hold the revision.
    assert!(shared.memory().may_keep(ticket, &key(family, Some(acme)), ada));

    // Everything forgotten (the listening connection lost, say): every revision moves.
    shared.forget_everything();
    let third = revisions(&shared);
    assert!(third.0 > second.0 && third.1 > second.1);
}
