//! The uptime store: leasing due apps, recording checks with their rollups and state changes, outage
//! e-mails at most once per window, and the month and problem reads.

use crate::codes::outbox;
use crate::fixtures::{self, email};
use adapter_db::Db;
use adapter_db::convert::backend;
use adapter_db::repos::DieselUptimeRepository;
use adapter_db::schema::{apps, organizations, uptime_checks, uptime_monitor, uptime_state_changes};
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use diesel::prelude::*;
use domain::apps::{AppStoreStatus, PackageName};
use domain::common::{OrgId, RepoError};
use domain::mail::{EmailKind, OutgoingEmail};
use domain::uptime::calendar::YearMonth;
use domain::uptime::models::{CheckOutcome, DailyRollup, HealthState, ProbeError, ProbeResult};
use domain::uptime::ports::{MonitoredApp, UptimeRepository};
use std::collections::HashSet;

fn at(month: u32, day: u32, hour: u32, minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, month, day, hour, minute, 0).unwrap()
}

fn answer(status: u16, latency_ms: u32) -> Result<ProbeResult, ProbeError> {
    let body_status = (status == 200).then(|| "healthy".to_owned());
    Ok(ProbeResult {
        http_status: status,
        body_status,
        latency_ms,
    })
}

fn check(package: &PackageName, when: DateTime<Utc>, probe: Result<ProbeResult, ProbeError>) -> CheckOutcome {
    CheckOutcome::classify(package.clone(), when, &probe)
}

fn up(package: &PackageName, when: DateTime<Utc>) -> CheckOutcome {
    check(package, when, answer(200, 40))
}

fn down(package: &PackageName, when: DateTime<Utc>) -> CheckOutcome {
    check(package, when, Err(ProbeError::Timeout))
}

fn org(db: &Db, name: &str, contact: Option<&str>) -> OrgId {
    let id = fixtures::organization(db, name);
    let mut conn = db.connection().unwrap();
    diesel::update(organizations::table.find(id.to_string()))
        .set(organizations::contact_email.eq(contact))
        .execute(&mut *conn)
        .unwrap();
    id
}

/// One SUBMITTED app of an organization with a contact.
fn one_app(db: &Db) -> PackageName {
    let acme = org(db, "Acme", Some("ops@acme.test"));
    fixtures::uptime_app(db, acme, "com.acme.app", "https://app.acme.test", "SUBMITTED")
}

fn alert_mail() -> OutgoingEmail {
    OutgoingEmail {
        kind: EmailKind::AppOffline,
        to: email("ops@acme.test"),
        subject: "App is offline".into(),
        text: "It failed 5 times".into(),
        link: None,
    }
}

fn names(apps: &[MonitoredApp]) -> Vec<&str> {
    apps.iter().map(|a| a.package_name.as_str()).collect()
}

async fn rows<T: Send + 'static>(
    db: &Db,
    query: impl FnOnce(&mut adapter_db::DbConnection) -> QueryResult<T> + Send + 'static,
) -> T {
    db.read(move |conn| query(conn).map_err(backend("test query")))
        .await
        .unwrap()
}

async fn lease_of(db: &Db, package: &PackageName) -> Option<i64> {
    let package = package.as_str().to_owned();
    rows(db, move |c| {
        uptime_monitor::table
            .find(package)
            .select(uptime_monitor::lease_until)
            .first(c)
    })
    .await
}

async fn check_count(db: &Db) -> i64 {
    rows(db, |c| uptime_checks::table.count().get_result(c)).await
}

fn rollup(
    package: &PackageName,
    day: NaiveDate,
    counts: (u32, u32, u32),
    latency: (u64, u32),
) -> DailyRollup {
    DailyRollup {
        package_name: package.clone(),
        day,
        healthy: counts.0,
        unhealthy: counts.1,
        total: counts.2,
        latency_sum_ms: latency.0,
        latency_count: latency.1,
    }
}

fn date(month: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, month, day).unwrap()
}

contract! {
    async fn leasing_finds_submitted_and_published_apps_with_what_the_monitor_needs(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let acme = org(db, "Acme", Some("ops@acme.test"));
        let quiet = org(db, "Quiet", None);
        fixtures::uptime_app(db, acme, "com.acme.sub", "https://sub.acme.test", "SUBMITTED");
        fixtures::uptime_app(db, acme, "com.acme.pub", "https://pub.acme.test/", "PUBLISHED");
        fixtures::uptime_app(db, acme, "com.acme.dev", "https://dev.acme.test", "DEVELOPMENT");
        fixtures::uptime_app(db, quiet, "com.quiet.rej", "https://rej.quiet.test", "REJECTED");
        fixtures::uptime_app(db, quiet, "com.quiet.pub", "https://pub.quiet.test", "PUBLISHED");
        let now = at(3, 14, 12, 0);
        let leased = repo.lease_due_apps(now, now - Duration::minutes(1), 10, now + Duration::minutes(2)).await.unwrap();
        assert_eq!(names(&leased), vec!["com.acme.pub", "com.acme.sub", "com.quiet.pub"]);
        assert_eq!(
            leased[0],
            MonitoredApp {
                package_name: PackageName::parse("com.acme.pub").unwrap(),
                name: "App com.acme.pub".into(),
                health_url: "https://pub.acme.test/health".into(),
                store_status: AppStoreStatus::Published,
                contact_email: Some(email("ops@acme.test")),
            }
        );
        assert_eq!(leased[1].store_status, AppStoreStatus::Submitted);
        assert_eq!(leased[2].contact_email, None);
        assert_eq!(lease_of(db, &leased[0].package_name).await, Some((now + Duration::minutes(2)).timestamp_millis()));
        let dev = PackageName::parse("com.acme.dev").unwrap();
        assert_eq!(rows(db, |c| uptime_monitor::table.count().get_result::<i64>(c)).await, 3);
        assert_eq!(repo.app_state(&dev).await.unwrap(), None);
    }

    async fn a_monitored_app_has_its_monitor_row_from_the_change_that_made_it_monitored(db) {
        let acme = org(db, "Acme", None);
        let monitors = |db: &Db| {
            let db = db.clone();
            async move {
                rows(&db, |c| {
                    uptime_monitor::table
                        .order(uptime_monitor::package_name.asc())
                        .select((uptime_monitor::package_name, uptime_monitor::check_slot_at))
                        .load::<(String, i64)>(c)
                })
                .await
            }
        };
        // Registered as submitted: the row comes with the app, due at once, before any lease scans anything.
        fixtures::uptime_app(db, acme, "com.acme.sub", "https://sub.acme.test", "SUBMITTED");
        let dev = fixtures::uptime_app(db, acme, "com.acme.dev", "https://dev.acme.test", "DEVELOPMENT");
        assert_eq!(monitors(db).await, vec![("com.acme.sub".to_owned(), 0)]);
        // A status change to PUBLISHED makes the row in the change's own statement.
        let set_status = |db: &Db, package: &PackageName, status: &'static str| {
            let mut conn = db.connection().unwrap();
            diesel::update(apps::table.find(package.as_str()))
                .set(apps::app_store_status.eq(status))
                .execute(&mut *conn)
                .unwrap();
        };
        set_status(db, &dev, "PUBLISHED");
        assert_eq!(monitors(db).await.len(), 2);
        // A row that exists is kept as it is when the app leaves and comes back (its checks go on from it).
        diesel::update(uptime_monitor::table.find(dev.as_str()))
            .set(uptime_monitor::check_slot_at.eq(42_i64))
            .execute(&mut *db.connection().unwrap())
            .unwrap();
        set_status(db, &dev, "DEVELOPMENT");
        set_status(db, &dev, "SUBMITTED");
        assert_eq!(monitors(db).await[0], ("com.acme.dev".to_owned(), 42));
        // A change that fails takes its row with it: the row is part of the change's transaction.
        let fresh = fixtures::uptime_app(db, acme, "com.acme.new", "https://new.acme.test", "DEVELOPMENT");
        let mut conn = db.connection().unwrap();
        let outcome = conn.transaction::<(), diesel::result::Error, _>(|conn| {
            diesel::update(apps::table.find(fresh.as_str()))
                .set(apps::app_store_status.eq("SUBMITTED"))
                .execute(conn)?;
            Err(diesel::result::Error::RollbackTransaction)
        });
        assert!(outcome.is_err());
        drop(conn);
        assert_eq!(monitors(db).await.len(), 2);
    }

    async fn a_leased_app_is_not_leased_again_until_its_lease_ends(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        one_app(db);
        let now = at(3, 14, 12, 0);
        let until = now + Duration::minutes(2);
        assert_eq!(repo.lease_due_apps(now, now, 10, until).await.unwrap().len(), 1);
        let soon = now + Duration::minutes(1);
        assert!(repo.lease_due_apps(soon, soon, 10, soon + Duration::minutes(2)).await.unwrap().is_empty());
        assert_eq!(repo.lease_due_apps(until, until, 10, until + Duration::minutes(2)).await.unwrap().len(), 1);
    }

    async fn leasing_takes_the_longest_due_first_up_to_the_limit_and_skips_recent_checks(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let acme = org(db, "Acme", None);
        let a = fixtures::uptime_app(db, acme, "com.acme.a", "https://a.test", "PUBLISHED");
        let b = fixtures::uptime_app(db, acme, "com.acme.b", "https://b.test", "PUBLISHED");
        let c = fixtures::uptime_app(db, acme, "com.acme.c", "https://c.test", "PUBLISHED");
        repo.record(&up(&a, at(3, 14, 11, 0))).await.unwrap();
        repo.record(&up(&c, at(3, 14, 11, 59))).await.unwrap();
        let now = at(3, 14, 12, 0);
        let due_before = now - Duration::minutes(1);
        let lease = now + Duration::minutes(2);
        let first = repo.lease_due_apps(now, due_before, 1, lease).await.unwrap();
        assert_eq!(names(&first), vec![b.as_str()], "never checked comes first");
        let second = repo.lease_due_apps(now, due_before, 5, lease).await.unwrap();
        assert_eq!(names(&second), vec![a.as_str()], "c was checked after due_before");
        let later = now + Duration::minutes(5);
        let third = repo.lease_due_apps(later, later - Duration::minutes(1), 5, later).await.unwrap();
        assert_eq!(names(&third), vec![b.as_str(), a.as_str(), c.as_str()], "oldest check first");
    }

    async fn concurrent_leases_never_hand_out_one_app_twice(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let acme = org(db, "Acme", None);
        for i in 0..12 {
            fixtures::uptime_app(db, acme, &format!("com.acme.app{i:02}"), &format!("https://{i}.test"), "PUBLISHED");
        }
        let now = at(3, 14, 12, 0);
        let mut tasks = Vec::new();
        for _ in 0..6 {
            let repo = repo.clone();
            tasks.push(tokio::spawn(async move {
                repo.lease_due_apps(now, now, 4, now + Duration::minutes(2)).await
            }));
        }
        let mut seen = HashSet::new();
        for task in tasks {
            for app in task.await.unwrap().unwrap() {
                assert!(seen.insert(app.package_name.clone()), "{} leased twice", app.package_name);
            }
        }
        let rest = repo.lease_due_apps(now, now, 12, now + Duration::minutes(2)).await.unwrap();
        for app in rest {
            assert!(seen.insert(app.package_name.clone()), "{} leased twice", app.package_name);
        }
        assert_eq!(seen.len(), 12);
    }

    async fn recording_adds_each_check_to_the_rollup_of_its_utc_day(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let app = one_app(db);
        repo.record(&check(&app, at(3, 14, 23, 58), answer(200, 100))).await.unwrap();
        repo.record(&check(&app, at(3, 14, 23, 59), answer(500, 300))).await.unwrap();
        repo.record(&check(&app, at(3, 15, 0, 0), Err(ProbeError::Timeout))).await.unwrap();
        repo.record(&check(&app, at(3, 15, 0, 1), answer(200, 50))).await.unwrap();
        repo.record(&check(&app, at(3, 15, 0, 2), Err(ProbeError::Unreachable("dns".into())))).await.unwrap();
        let month = YearMonth::new(2026, 3).unwrap();
        assert_eq!(
            repo.app_month_rollups(&app, month).await.unwrap(),
            vec![
                rollup(&app, date(3, 14), (1, 1, 2), (400, 2)),
                rollup(&app, date(3, 15), (1, 2, 3), (50, 1)),
            ]
        );
        assert_eq!(check_count(db).await, 5);
    }

    async fn recording_many_checks_at_once_does_what_recording_each_does(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let acme = org(db, "Acme", None);
        let a = fixtures::uptime_app(db, acme, "com.acme.a", "https://a.test", "PUBLISHED");
        let b = fixtures::uptime_app(db, acme, "com.acme.b", "https://b.test", "SUBMITTED");
        let ghost = PackageName::parse("com.ghost.app").unwrap();
        let t0 = at(3, 14, 23, 59);
        let t1 = at(3, 15, 0, 1);
        assert_eq!(repo.lease_due_apps(t0, t0, 5, t0 + Duration::minutes(2)).await.unwrap().len(), 2);
        // A second check of `a` in the same batch is recorded after the first, as its own check.
        let states = repo
            .record_many(&[up(&a, t0), down(&b, t0), up(&ghost, t0), check(&a, t1, answer(503, 20))])
            .await
            .unwrap();
        assert_eq!(states.len(), 4);
        assert!(states[2].is_none(), "a deleted app gets no state");
        let (first_a, b_state, last_a) = (states[0].clone().unwrap(), states[1].clone().unwrap(), states[3].clone().unwrap());
        assert_eq!((first_a.online, first_a.consecutive_offline, first_a.changed_at), (true, 0, t0));
        assert_eq!((b_state.online, b_state.health, b_state.consecutive_offline), (false, HealthState::Timeout, 1));
        assert_eq!((last_a.online, last_a.health, last_a.consecutive_offline, last_a.changed_at), (false, HealthState::Unhealthy, 1, t1));
        assert_eq!(repo.app_state(&a).await.unwrap(), Some(last_a));
        assert_eq!(repo.app_state(&b).await.unwrap(), Some(b_state));
        assert_eq!((lease_of(db, &a).await, lease_of(db, &b).await), (None, None), "the leases are released");
        assert_eq!(check_count(db).await, 3);
        assert_eq!(rows(db, |c| uptime_state_changes::table.count().get_result::<i64>(c)).await, 3);
        let march = YearMonth::new(2026, 3).unwrap();
        assert_eq!(
            repo.app_month_rollups(&a, march).await.unwrap(),
            vec![rollup(&a, date(3, 14), (1, 0, 1), (40, 1)), rollup(&a, date(3, 15), (0, 1, 1), (20, 1))]
        );
        // A later batch adds to the same day's rollup.
        repo.record_many(&[down(&b, t0 + Duration::seconds(30))]).await.unwrap();
        assert_eq!(repo.app_month_rollups(&b, march).await.unwrap(), vec![rollup(&b, date(3, 14), (0, 2, 2), (0, 0))]);
        assert_eq!(repo.app_state(&b).await.unwrap().unwrap().consecutive_offline, 2);
        assert!(repo.record_many(&[]).await.unwrap().is_empty());
    }

    async fn recording_keeps_the_state_counts_offline_checks_and_releases_the_lease(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let app = one_app(db);
        assert_eq!(repo.app_state(&app).await.unwrap(), None);
        let t0 = at(3, 14, 12, 0);
        repo.lease_due_apps(t0, t0, 1, t0 + Duration::minutes(2)).await.unwrap();
        assert!(lease_of(db, &app).await.is_some());
        let first = repo.record(&down(&app, t0)).await.unwrap();
        assert_eq!(lease_of(db, &app).await, None, "the lease is released");
        assert_eq!((first.online, first.health, first.consecutive_offline), (false, HealthState::Timeout, 1));
        assert_eq!((first.last_checked_at, first.changed_at, first.last_offline_alert_at), (t0, t0, None));
        let t1 = t0 + Duration::minutes(1);
        let second = repo.record(&check(&app, t1, answer(503, 20))).await.unwrap();
        assert_eq!((second.health, second.consecutive_offline, second.changed_at), (HealthState::Unhealthy, 2, t0));
        let t2 = t1 + Duration::minutes(1);
        let third = repo.record(&up(&app, t2)).await.unwrap();
        assert_eq!((third.online, third.consecutive_offline, third.changed_at, third.last_checked_at), (true, 0, t2, t2));
        assert_eq!(repo.app_state(&app).await.unwrap(), Some(third));
    }

    async fn state_change_rows_are_written_only_when_online_flips(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let app = one_app(db);
        let t = |minute| at(3, 14, 12, minute);
        for outcome in [up(&app, t(0)), up(&app, t(1)), down(&app, t(2)), down(&app, t(3)), up(&app, t(4))] {
            repo.record(&outcome).await.unwrap();
        }
        let changes: Vec<(i64, bool, String)> = rows(db, |c| {
            uptime_state_changes::table
                .order(uptime_state_changes::changed_at.asc())
                .select((uptime_state_changes::changed_at, uptime_state_changes::online, uptime_state_changes::health))
                .load(c)
        })
        .await;
        assert_eq!(
            changes,
            vec![
                (t(0).timestamp_millis(), true, "healthy".to_owned()),
                (t(2).timestamp_millis(), false, "timeout".to_owned()),
                (t(4).timestamp_millis(), true, "healthy".to_owned()),
            ]
        );
    }

    async fn recording_a_check_of_a_deleted_app_is_not_found_and_stores_nothing(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let app = one_app(db);
        let ghost = PackageName::parse("com.ghost.app").unwrap();
        let result = repo.record(&up(&ghost, at(3, 14, 12, 0))).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        let now = at(3, 14, 12, 0);
        assert_eq!(repo.lease_due_apps(now, now, 5, now + Duration::minutes(2)).await.unwrap().len(), 1);
        let package = app.as_str().to_owned();
        rows(db, move |c| diesel::delete(apps::table.find(package)).execute(c)).await;
        let result = repo.record(&down(&app, now)).await;
        assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
        assert_eq!(check_count(db).await, 0);
        assert!(repo.month_rollups_of(YearMonth::new(2026, 3).unwrap(), std::slice::from_ref(&app)).await.unwrap().is_empty());
        assert_eq!(rows(db, |c| uptime_state_changes::table.count().get_result::<i64>(c)).await, 0);
    }

    async fn an_outage_email_is_queued_at_most_once_per_window(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let app = one_app(db);
        let now = at(3, 14, 12, 0);
        let never = repo.queue_offline_alert(&app, &alert_mail(), now, now - Duration::hours(24)).await;
        assert!(matches!(never, Err(RepoError::NotFound)), "no state before the first check: {never:?}");
        repo.record(&down(&app, now)).await.unwrap();
        assert!(repo.queue_offline_alert(&app, &alert_mail(), now, now - Duration::hours(24)).await.unwrap());
        let mails = outbox(db).await;
        assert_eq!(mails.len(), 1);
        assert_eq!((mails[0].0.as_str(), mails[0].1.as_str()), ("app_offline", "ops@acme.test"));
        assert_eq!(repo.app_state(&app).await.unwrap().unwrap().last_offline_alert_at, Some(now));
        for later in [now + Duration::hours(1), now + Duration::hours(24)] {
            let queued = repo.queue_offline_alert(&app, &alert_mail(), later, later - Duration::hours(24)).await;
            assert!(!queued.unwrap(), "within the window at {later}");
        }
        assert_eq!(outbox(db).await.len(), 1, "nothing queued when the compare-and-set misses");
        let next_day = now + Duration::hours(24) + Duration::milliseconds(1);
        assert!(repo.queue_offline_alert(&app, &alert_mail(), next_day, next_day - Duration::hours(24)).await.unwrap());
        assert_eq!(outbox(db).await.len(), 2);
        assert_eq!(repo.app_state(&app).await.unwrap().unwrap().last_offline_alert_at, Some(next_day));
        let ghost = PackageName::parse("com.ghost.app").unwrap();
        let missing = repo.queue_offline_alert(&ghost, &alert_mail(), now, now).await;
        assert!(matches!(missing, Err(RepoError::NotFound)), "{missing:?}");
    }

    async fn of_concurrent_outage_emails_exactly_one_is_queued(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let app = one_app(db);
        let now = at(3, 14, 12, 0);
        repo.record(&down(&app, now)).await.unwrap();
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (repo, app) = (repo.clone(), app.clone());
            tasks.push(tokio::spawn(async move {
                repo.queue_offline_alert(&app, &alert_mail(), now, now - Duration::hours(24)).await
            }));
        }
        let mut queued = 0;
        for task in tasks {
            if task.await.unwrap().unwrap() {
                queued += 1;
            }
        }
        assert_eq!(queued, 1);
        assert_eq!(outbox(db).await.len(), 1);
    }

    async fn month_reads_answer_one_row_per_app_and_day_of_that_month(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let acme = org(db, "Acme", None);
        let a = fixtures::uptime_app(db, acme, "com.acme.a", "https://a.test", "PUBLISHED");
        let b = fixtures::uptime_app(db, acme, "com.acme.b", "https://b.test", "PUBLISHED");
        for when in [at(2, 28, 23, 59), at(3, 1, 0, 0), at(3, 1, 6, 0), at(3, 31, 23, 59), at(4, 1, 0, 0)] {
            repo.record(&up(&a, when)).await.unwrap();
        }
        repo.record(&down(&b, at(3, 1, 12, 0))).await.unwrap();
        let march = YearMonth::new(2026, 3).unwrap();
        assert_eq!(
            repo.month_rollups_of(march, &[b.clone(), a.clone()]).await.unwrap(),
            vec![
                rollup(&a, date(3, 1), (2, 0, 2), (80, 2)),
                rollup(&a, date(3, 31), (1, 0, 1), (40, 1)),
                rollup(&b, date(3, 1), (0, 1, 1), (0, 0)),
            ],
            "by app, then by day"
        );
        assert_eq!(repo.month_rollups_of(march, std::slice::from_ref(&b)).await.unwrap().len(), 1, "the apps asked for only");
        assert_eq!(repo.app_month_rollups(&b, march).await.unwrap(), vec![rollup(&b, date(3, 1), (0, 1, 1), (0, 0))]);
        let february = YearMonth::new(2026, 2).unwrap();
        assert_eq!(repo.app_month_rollups(&a, february).await.unwrap(), vec![rollup(&a, date(2, 28), (1, 0, 1), (40, 1))]);
        assert!(repo.app_month_rollups(&b, february).await.unwrap().is_empty());
    }

    async fn a_months_apps_are_the_monitored_ones_and_others_checked_in_that_month(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let acme = org(db, "Acme", None);
        let live = fixtures::uptime_app(db, acme, "com.acme.live", "https://live.test", "PUBLISHED");
        let review = fixtures::uptime_app(db, acme, "com.acme.review", "https://review.test", "SUBMITTED");
        let pulled = fixtures::uptime_app(db, acme, "com.acme.pulled", "https://pulled.test", "PUBLISHED");
        let april = fixtures::uptime_app(db, acme, "com.acme.april", "https://april.test", "PUBLISHED");
        fixtures::uptime_app(db, acme, "com.acme.draft", "https://draft.test", "DEVELOPMENT");
        repo.record(&up(&pulled, at(3, 2, 12, 0))).await.unwrap();
        repo.record(&up(&april, at(4, 2, 12, 0))).await.unwrap();
        for package in [pulled.as_str().to_owned(), april.as_str().to_owned()] {
            rows(db, move |c| {
                diesel::update(apps::table.find(package))
                    .set(apps::app_store_status.eq("REJECTED"))
                    .execute(c)
            })
            .await;
        }
        let march = repo.month_apps(YearMonth::new(2026, 3).unwrap()).await.unwrap();
        let listed: Vec<(&str, AppStoreStatus)> =
            march.iter().map(|a| (a.package_name.as_str(), a.store_status)).collect();
        assert_eq!(
            listed,
            vec![
                (live.as_str(), AppStoreStatus::Published),
                (pulled.as_str(), AppStoreStatus::Rejected),
                (review.as_str(), AppStoreStatus::Submitted),
            ],
            "by package name; the draft and the app checked in April only are not March's"
        );
        assert_eq!(march[0].name, "App com.acme.live");
        let latest = repo.latest_status_of(&[pulled.clone(), live.clone()]).await.unwrap();
        assert_eq!(latest.iter().map(|l| l.package_name.as_str()).collect::<Vec<_>>(), vec![pulled.as_str()]);
        assert!(repo.latest_status_of(&[live]).await.unwrap().is_empty(), "never checked");
    }

    async fn problem_checks_are_a_days_failures_newest_first_until_pruned(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let app = one_app(db);
        let failing = check(&app, at(3, 14, 11, 0), answer(500, 70));
        let timeout = down(&app, at(3, 14, 12, 0));
        repo.record(&up(&app, at(3, 14, 10, 0))).await.unwrap();
        repo.record(&failing).await.unwrap();
        repo.record(&timeout).await.unwrap();
        repo.record(&down(&app, at(3, 15, 1, 0))).await.unwrap();
        assert_eq!(repo.problem_checks(&app, date(3, 14)).await.unwrap(), vec![timeout.clone(), failing]);
        assert!(repo.problem_checks(&app, date(3, 13)).await.unwrap().is_empty());
        assert_eq!(repo.prune_raw_before(at(3, 14, 11, 30)).await.unwrap(), 2);
        assert_eq!(repo.problem_checks(&app, date(3, 14)).await.unwrap(), vec![timeout]);
        assert_eq!(check_count(db).await, 2);
        let march = repo.app_month_rollups(&app, YearMonth::new(2026, 3).unwrap()).await.unwrap();
        assert_eq!((march[0].day, march[0].total), (date(3, 14), 3), "rollups stay");
    }

    async fn apps_are_listed_found_by_health_url_and_their_latest_check_read(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        let acme = org(db, "Acme", Some("ops@acme.test"));
        let live = fixtures::uptime_app(db, acme, "com.acme.live", "https://live.acme.test", "PUBLISHED");
        let review = fixtures::uptime_app(db, acme, "com.acme.review", "https://review.acme.test/", "SUBMITTED");
        fixtures::uptime_app(db, acme, "com.acme.dev", "https://dev.acme.test", "DEVELOPMENT");
        assert_eq!(names(&repo.all_monitored_apps().await.unwrap()), vec![live.as_str(), review.as_str()]);
        let dev = repo.find_app_by_health_url("https://dev.acme.test/health").await.unwrap().unwrap();
        assert_eq!((dev.package_name.as_str(), dev.store_status), ("com.acme.dev", AppStoreStatus::Development));
        let found = repo.find_app_by_health_url("https://review.acme.test/health").await.unwrap().unwrap();
        assert_eq!(found.package_name, review);
        assert_eq!(repo.find_app_by_health_url("https://review.acme.test/").await.unwrap(), None);
        assert_eq!(repo.find_app_by_health_url("https://other.test/health").await.unwrap(), None);
        assert!(repo.all_latest_status().await.unwrap().is_empty());
        repo.record(&up(&live, at(3, 14, 12, 0))).await.unwrap();
        repo.record(&down(&live, at(3, 14, 12, 1))).await.unwrap();
        let latest = repo.all_latest_status().await.unwrap();
        assert_eq!(latest.len(), 1);
        assert_eq!((&latest[0].package_name, latest[0].health, latest[0].checked_at), (&live, HealthState::Timeout, at(3, 14, 12, 1)));
    }
}

contract! {
    async fn the_oldest_check_slot_is_the_earliest_last_check_of_a_monitored_app(db) {
        let repo = DieselUptimeRepository::new(db.clone());
        assert_eq!(repo.oldest_check_slot().await.unwrap(), None);
        let acme = org(db, "Acme", None);
        let a = fixtures::uptime_app(db, acme, "com.acme.a", "https://a.test", "PUBLISHED");
        let b = fixtures::uptime_app(db, acme, "com.acme.b", "https://b.test", "SUBMITTED");
        let _never_checked = fixtures::uptime_app(db, acme, "com.acme.c", "https://c.test", "PUBLISHED");
        let now = at(3, 14, 12, 0);
        repo.lease_due_apps(now, now, 10, now + Duration::minutes(2)).await.unwrap();
        assert_eq!(repo.oldest_check_slot().await.unwrap(), None, "never checked: no slot yet");
        repo.record(&up(&a, at(3, 14, 11, 0))).await.unwrap();
        repo.record(&up(&b, at(3, 14, 11, 30))).await.unwrap();
        assert_eq!(repo.oldest_check_slot().await.unwrap(), Some(at(3, 14, 11, 0)));
        // An app no longer monitored (rejected) does not count.
        let mut conn = db.connection().unwrap();
        diesel::update(apps::table.filter(apps::package_name.eq(a.as_str())))
            .set(apps::app_store_status.eq("REJECTED"))
            .execute(&mut *conn)
            .unwrap();
        drop(conn);
        assert_eq!(repo.oldest_check_slot().await.unwrap(), Some(at(3, 14, 11, 30)));
    }
}
