//! What authorizes a request, kept in memory (`adapters/db/src/live_cache`): two pools on one database, as
//! two instances behind a load balancer (or, on SQLite, the server and an `app-server admin` command).
//! Whatever one changes, the other's very next read answers, though it had the old answer in memory.

use crate::fixtures;
use adapter_db::repos::{
    DieselAppRepository, DieselOrgRepository, DieselPasskeyRepository, DieselPlatformAdminRepository,
    DieselRefreshTokenRepository,
};
use adapter_db::{Backend, Db};
use chrono::{DateTime, Duration, TimeZone, Utc};
use diesel::RunQueryDsl;
use domain::apps::ports::AppRepository;
use domain::common::{OrgId, PlatformRole, UserId};
use domain::identity::models::{AuthMethod, GrantBinding, LiveSessionInOrg, RefreshToken};
use domain::identity::passkeys::Passkey;
use domain::identity::ports::{PasskeyRepository, PlatformAdminRepository, RefreshTokenRepository};
use domain::orgs::{OrgRepository, OrgRole};
use uuid::Uuid;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

/// `there`'s read of `family` in `org`, made twice: on PostgreSQL the second must come from memory, so
/// that the change that follows is made while `there` keeps the old answer.
async fn kept_by(
    db: &Db,
    there: &DieselRefreshTokenRepository,
    family: Uuid,
    org: OrgId,
) -> LiveSessionInOrg {
    let first = there
        .current_of_family_in_org(family, org)
        .await
        .unwrap()
        .unwrap();
    let hits = db.pool_stats().cache_hits;
    let again = there
        .current_of_family_in_org(family, org)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again, first);
    if db.backend() == Backend::Postgres {
        assert_eq!(
            db.pool_stats().cache_hits,
            hits + 1,
            "the second read is answered from memory"
        );
    }
    first
}

/// Ends the listening connection of `db`'s cache from the server side, as an administrator or a restart
/// would.
fn end_listening_connection(db: &Db) {
    #[derive(diesel::QueryableByName)]
    struct Ended {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = db.connection().unwrap();
    let ended: Ended = diesel::sql_query(
        "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity \
         WHERE application_name = left('portal live cache ' || current_schema(), 63)",
    )
    .get_result(&mut *conn)
    .unwrap();
    assert_eq!(ended.n, 1, "one listening connection per pool");
}

shared_contract! {
    async fn what_one_instance_changes_the_other_reads_at_once_though_it_kept_the_old_answer(first, second) {
        let here = DieselRefreshTokenRepository::new(first.clone());
        let there = DieselRefreshTokenRepository::new(second.clone());
        let user = fixtures::account(first, "s@example.com");
        let acme = fixtures::organization(first, "Acme");
        fixtures::member(first, acme, user, "member", fixtures::at(0));
        let head = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        here.insert(&head).await.unwrap();
        let family = head.family_id;

        // An app registered: the revision moves. On PostgreSQL the session stays in memory (an app's notice
        // moves the revision and forgets nothing), and the revision the apps repository reads is the same.
        let before = kept_by(second, &there, family, acme).await;
        let hits = second.pool_stats().cache_hits;
        fixtures::app(first, acme, user, "com.acme.one");
        let after = there.current_of_family_in_org(family, acme).await.unwrap().unwrap();
        assert!(after.apps_revision > before.apps_revision);
        assert_eq!(DieselAppRepository::new(second.clone()).revision(acme).await.unwrap(), after.apps_revision);
        if second.backend() == Backend::Postgres {
            assert_eq!(second.pool_stats().cache_hits, hits + 1, "the session was read from memory");
        }

        // The member's role changed.
        fixtures::member(first, acme, fixtures::account(first, "boss@example.com"), "admin", fixtures::at(0));
        kept_by(second, &there, family, acme).await;
        let orgs = DieselOrgRepository::new(first.clone());
        orgs.set_role(acme, user, OrgRole::Admin, &fixtures::audit()).await.unwrap();
        assert_eq!(there.current_of_family_in_org(family, acme).await.unwrap().unwrap().org_role, Some(OrgRole::Admin));

        // The organization now requires a second factor.
        kept_by(second, &there, family, acme).await;
        orgs.set_two_factor_requirement(acme, true, noon(), &fixtures::audit()).await.unwrap();
        assert!(there.current_of_family_in_org(family, acme).await.unwrap().unwrap().org_requires_two_factor);

        // A platform role granted to the account.
        kept_by(second, &there, family, acme).await;
        DieselPlatformAdminRepository::new(first.clone())
            .grant(&fixtures::email("s@example.com"), PlatformRole::Reviewer, None, GrantBinding::AnyAccount, noon(), &fixtures::audit())
            .await
            .unwrap();
        assert_eq!(there.current_of_family_in_org(family, acme).await.unwrap().unwrap().live.role, Some(PlatformRole::Reviewer));

        // A passkey added (a second factor).
        kept_by(second, &there, family, acme).await;
        let passkey = Passkey {
            id: Uuid::new_v4(),
            user_id: user,
            credential_id: "cred-a".into(),
            public_key: "{\"cred\":{}}".into(),
            sign_count: 0,
            friendly_name: Some("Passkey".into()),
            created_at: noon(),
            last_used_at: None,
        };
        DieselPasskeyRepository::new(first.clone())
            .insert(&passkey, &fixtures::notice("s@example.com", "passkey added"), noon())
            .await
            .unwrap();
        assert!(there.current_of_family_in_org(family, acme).await.unwrap().unwrap().live.protection.is_protected());

        // The session refreshed: its new head.
        kept_by(second, &there, family, acme).await;
        let later = noon() + Duration::minutes(5);
        let successor = head.successor("h2".into(), later);
        here.rotate("h1", &successor, later).await.unwrap();
        assert_eq!(there.current_of_family_in_org(family, acme).await.unwrap().unwrap().live.head, successor);

        // Removed from the organization.
        kept_by(second, &there, family, acme).await;
        orgs.remove_member(acme, user, &fixtures::audit()).await.unwrap();
        assert_eq!(there.current_of_family_in_org(family, acme).await.unwrap().unwrap().org_role, None);

        // Signed out: the read without an organization too.
        kept_by(second, &there, family, acme).await;
        there.current_of_family_with_role(family).await.unwrap().unwrap();
        there.current_of_family_with_role(family).await.unwrap().unwrap();
        here.revoke_family(family, later).await.unwrap();
        assert_eq!(there.current_of_family_in_org(family, acme).await.unwrap(), None);
        assert_eq!(there.current_of_family_with_role(family).await.unwrap(), None);
    }

    async fn a_sign_out_on_one_instance_is_never_missed_by_the_other(first, second) {
        // Many times over: the other instance's next read follows the sign-out at once, every time.
        let here = DieselRefreshTokenRepository::new(first.clone());
        let there = DieselRefreshTokenRepository::new(second.clone());
        let user = fixtures::account(first, "s@example.com");
        let acme = fixtures::organization(first, "Acme");
        for round in 0..150 {
            let head = RefreshToken::start(format!("h{round}"), user, AuthMethod::Password, noon());
            here.insert(&head).await.unwrap();
            kept_by(second, &there, head.family_id, acme).await;
            here.revoke_family(head.family_id, noon()).await.unwrap();
            assert_eq!(there.current_of_family_in_org(head.family_id, acme).await.unwrap(), None, "round {round}");
        }
    }

    async fn a_change_made_while_the_listening_connection_was_lost_is_not_read_from_memory(first, second) {
        let KeptSession { here, there, user, acme, family } = kept_session(first, second).await;
        if second.backend() == Backend::Postgres {
            end_listening_connection(second);
        }
        // The sign-out's notice reaches no listener of `second`'s: what it kept must be forgotten anyway,
        // now and after it listens again.
        here.revoke_family(family, noon()).await.unwrap();
        for read in 0..3 {
            assert_eq!(there.current_of_family_in_org(family, acme).await.unwrap(), None, "read {read}");
        }
        // Listening again, it keeps what it reads once more.
        let next = RefreshToken::start("h2".into(), user, AuthMethod::Password, noon());
        here.insert(&next).await.unwrap();
        kept_by(second, &there, next.family_id, acme).await;

        // The apps revisions handed out while the connection was lost (fresh numbers, with which nothing kept
        // is used again) are behind those memory gives once it listens again: a list kept then is used.
        if second.backend() == Backend::Postgres {
            end_listening_connection(second);
            let apps_there = DieselAppRepository::new(second.clone());
            let during = apps_there.revision(acme).await.unwrap();
            let after = apps_there.revision(acme).await.unwrap();
            assert!(after >= during, "{after} after {during}");
            assert_eq!(apps_there.revision(acme).await.unwrap(), after, "listening: the revision holds");
        }
    }
}

/// A session of a member of Acme, made through `first` and kept in `second`'s memory.
struct KeptSession {
    here: DieselRefreshTokenRepository,
    there: DieselRefreshTokenRepository,
    user: UserId,
    acme: OrgId,
    family: Uuid,
}

async fn kept_session(first: &Db, second: &Db) -> KeptSession {
    let here = DieselRefreshTokenRepository::new(first.clone());
    let there = DieselRefreshTokenRepository::new(second.clone());
    let user = fixtures::account(first, "s@example.com");
    let acme = fixtures::organization(first, "Acme");
    let head = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
    here.insert(&head).await.unwrap();
    kept_by(second, &there, head.family_id, acme).await;
    KeptSession {
        here,
        there,
        user,
        acme,
        family: head.family_id,
    }
}

/// `second` kept a session that `first` signs out: `second`'s next read must not find it.
async fn a_sign_out_is_seen_by_the_other_pool(first: &Db, second: &Db) {
    let KeptSession {
        here,
        there,
        acme,
        family,
        ..
    } = kept_session(first, second).await;
    here.revoke_family(family, noon()).await.unwrap();
    assert_eq!(there.current_of_family_in_org(family, acme).await.unwrap(), None);
}

/// What only PostgreSQL has: row locks between writers, and schemas set-ups give it.
mod postgres_only {
    use super::*;
    use adapter_db::testing;

    /// Drops a schema the test made, when the test ends.
    struct Dropped(String);

    impl Drop for Dropped {
        fn drop(&mut self) {
            testing::postgres_admin_execute(&format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.0));
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_schema_whose_channel_would_be_over_63_bytes_still_writes_and_announces() {
        // 60 bytes in 49 characters: 'live_cache ' and the name make 71 bytes (a channel has at most 63).
        let schema = format!("test_{}_{}", Uuid::new_v4().simple(), "é".repeat(11));
        assert_eq!(schema.len(), 60);
        let test_db = testing::fresh_postgres_named(&schema);
        let other = Db::connect(test_db.url(), 4).unwrap();
        a_sign_out_is_seen_by_the_other_pool(&test_db, &other).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_search_path_whose_first_schema_holds_none_of_the_tables_listens_where_the_tables_are() {
        let test_db = testing::fresh(Backend::Postgres);
        let tables = test_db.schema().unwrap().to_owned();
        // An instance whose search path begins with an existing, empty schema (its role's own, say):
        // `current_schema()` names that one, its statements reach the tables of the other.
        let empty = Dropped(format!("empty_{}", Uuid::new_v4().simple()));
        testing::postgres_admin_execute(&format!("CREATE SCHEMA \"{}\"", empty.0));
        let other = Db::connect(&testing::postgres_url_with_search_path(&[&empty.0, &tables]), 4).unwrap();
        a_sign_out_is_seen_by_the_other_pool(&test_db, &other).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_app_writes_of_one_organization_do_not_wait_for_each_others_commit() {
    use diesel::Connection;
    use diesel::connection::SimpleConnection;
    let test_db = adapter_db::testing::fresh(Backend::Postgres);
    let db: &Db = &test_db;
    let user = fixtures::account(db, "s@example.com");
    let acme = fixtures::organization(db, "Acme");
    fixtures::app(db, acme, user, "com.acme.one");
    fixtures::app(db, acme, user, "com.acme.two");
    let family = {
        let head = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        DieselRefreshTokenRepository::new(db.clone())
            .insert(&head)
            .await
            .unwrap();
        head.family_id
    };
    let other = Db::connect(test_db.url(), 4).unwrap();
    let there = DieselRefreshTokenRepository::new(other.clone());
    let before = kept_by(&other, &there, family, acme).await;

    let mut one = diesel::pg::PgConnection::establish(test_db.url()).unwrap();
    let mut two = diesel::pg::PgConnection::establish(test_db.url()).unwrap();
    one.batch_execute("BEGIN; UPDATE apps SET description = 'one' WHERE package_name = 'com.acme.one'")
        .unwrap();
    // The first write holds its row until it commits; the second, of another app of the same organization,
    // must not wait for it (it waited for the organization's row before).
    two.batch_execute(
        "SET lock_timeout = '2s'; BEGIN; UPDATE apps SET description = 'two' WHERE package_name = 'com.acme.two'; COMMIT",
    )
    .expect("the second write waited for the first one's commit");
    let between = there
        .current_of_family_in_org(family, acme)
        .await
        .unwrap()
        .unwrap();
    one.batch_execute("COMMIT").unwrap();
    let after = there
        .current_of_family_in_org(family, acme)
        .await
        .unwrap()
        .unwrap();
    assert!(before.apps_revision < between.apps_revision && between.apps_revision < after.apps_revision);
}
