//! Tests of the uptime service.

use super::*;
use crate::apps::{AppStoreStatus, PackageName};
use crate::common::{EmailAddress, PlatformRole, RepoError, UserId};
use crate::mail::EmailKind;
use crate::testing::{block_on, fixed_clock, noon};
use crate::uptime::calendar::{MonthError, YearMonth};
use crate::uptime::models::CheckOutcome;
use crate::uptime::models::{Badge, DailyRollup, HealthState};
use crate::uptime::models::{DayColour, ProbeError, ProbeResult};
use crate::uptime::month_list::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MonthApp, MonthListQuery, PageError};
use crate::uptime::ports::{
    AppUptimeState, LatestStatus, MockHealthProber, MockUptimeRepository, MonitoredApp,
};
use chrono::Duration;
use chrono::{DateTime, NaiveDate, Utc};
use mockall::predicate::eq;
use std::sync::Arc;

fn pkg(name: &str) -> PackageName {
    PackageName::parse(name).unwrap()
}

fn app(name: &str, contact: Option<&str>) -> MonitoredApp {
    MonitoredApp {
        package_name: pkg(name),
        name: format!("App {name}"),
        health_url: format!("https://{name}.test/health"),
        store_status: AppStoreStatus::Published,
        contact_email: contact.map(|c| EmailAddress::parse(c).unwrap()),
    }
}

fn state(name: &str, online: bool, consecutive: u32, last_alert: Option<DateTime<Utc>>) -> AppUptimeState {
    AppUptimeState {
        package_name: pkg(name),
        online,
        health: if online {
            HealthState::Healthy
        } else {
            HealthState::Unreachable
        },
        consecutive_offline: consecutive,
        last_checked_at: noon(),
        changed_at: noon(),
        last_offline_alert_at: last_alert,
    }
}

fn admin() -> Caller {
    Caller {
        user_id: UserId::new(),
        email: EmailAddress::parse("admin@portal.test").unwrap(),
        platform_role: Some(PlatformRole::Reviewer),
        origin: crate::common::ClientOrigin::default(),
    }
}

fn developer() -> Caller {
    Caller {
        platform_role: None,
        origin: crate::common::ClientOrigin::default(),
        ..admin()
    }
}

fn service(repo: MockUptimeRepository, prober: MockHealthProber) -> UptimeService {
    UptimeService::new(
        Arc::new(repo),
        Arc::new(prober),
        Arc::new(fixed_clock()),
        UptimeConfig::new("https://portal.test"),
        Arc::new(crate::testing::MemoryRateLimitStore::default()),
    )
}

fn monitor(repo: MockUptimeRepository, prober: MockHealthProber) -> UptimeMonitorService {
    UptimeMonitorService::new(
        Arc::new(repo),
        Arc::new(prober),
        Arc::new(fixed_clock()),
        UptimeConfig::new("https://portal.test"),
    )
}

fn healthy_prober() -> MockHealthProber {
    let mut prober = MockHealthProber::new();
    prober.expect_probe().returning(|_| {
        Ok(ProbeResult {
            http_status: 200,
            body_status: Some("healthy".into()),
            latency_ms: 30,
        })
    });
    prober
}

fn down_prober() -> MockHealthProber {
    let mut prober = MockHealthProber::new();
    prober
        .expect_probe()
        .returning(|_| Err(ProbeError::Unreachable("connection refused".into())));
    prober
}

fn rollup(name: &str, day: u32, healthy: u32, unhealthy: u32) -> DailyRollup {
    DailyRollup {
        package_name: pkg(name),
        day: NaiveDate::from_ymd_opt(2026, 3, day).unwrap(),
        healthy,
        unhealthy,
        total: healthy + unhealthy,
        latency_sum_ms: 0,
        latency_count: 0,
    }
}

#[test]
fn a_round_leases_due_apps_then_probes_and_records_each() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_lease_due_apps()
        .with(
            eq(noon()),
            eq(noon() - Duration::seconds(60)),
            eq(200),
            eq(noon() + Duration::minutes(2)),
        )
        .times(1)
        .returning(|_, _, _, _| Ok(vec![app("a.app", None), app("b.app", None)]));
    repo.expect_record()
        .withf(|o| o.healthy && o.online && o.http_status == Some(200) && o.checked_at == noon())
        .times(2)
        .returning(|o| Ok(state(o.package_name.as_str(), true, 0, None)));
    let mut prober = MockHealthProber::new();
    prober
        .expect_probe()
        .withf(|url| url == "https://a.app.test/health" || url == "https://b.app.test/health")
        .times(2)
        .returning(|_| {
            Ok(ProbeResult {
                http_status: 200,
                body_status: Some("healthy".into()),
                latency_ms: 5,
            })
        });
    let report = block_on(monitor(repo, prober).run_checks()).unwrap();
    assert_eq!(report.checked.len(), 2);
    assert!(report.failures.is_empty());
    assert!(report.checked.iter().all(|c| c.recorded && !c.alert_queued));
}

#[test]
fn a_failed_record_is_reported_and_the_round_goes_on() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_lease_due_apps()
        .returning(|_, _, _, _| Ok(vec![app("a.app", None), app("b.app", None)]));
    repo.expect_record()
        .withf(|o| o.package_name.as_str() == "a.app")
        .returning(|_| Err(RepoError::backend("insert check", "disk full")));
    repo.expect_record()
        .returning(|o| Ok(state(o.package_name.as_str(), true, 0, None)));
    let report = block_on(monitor(repo, healthy_prober()).run_checks()).unwrap();
    assert_eq!(report.checked.len(), 1);
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].0.as_str(), "a.app");
}

#[test]
fn an_app_deleted_during_its_check_is_skipped_quietly() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_record().returning(|_| Err(RepoError::NotFound));
    let report =
        block_on(monitor(repo, healthy_prober()).check_app(&app("gone.app", Some("o@x.io")))).unwrap();
    assert!(!report.recorded && !report.alert_queued);
}

#[test]
fn the_fifth_offline_check_queues_one_outage_email_to_the_org_contact() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_record()
        .withf(|o| o.health == HealthState::Unreachable && !o.online)
        .returning(|_| Ok(state("a.app", false, 5, None)));
    repo.expect_queue_offline_alert()
        .withf(|p, email, now, not_since| {
            p.as_str() == "a.app"
                && email.kind == EmailKind::AppOffline
                && email.to.as_str() == "ops@x.io"
                && *now == noon()
                && *not_since == noon() - Duration::hours(24)
        })
        .times(1)
        .returning(|_, _, _, _| Ok(true));
    let report = block_on(monitor(repo, down_prober()).check_app(&app("a.app", Some("ops@x.io")))).unwrap();
    assert!(report.alert_queued);
}

#[test]
fn fewer_than_five_offline_checks_send_nothing() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_record()
        .returning(|_| Ok(state("a.app", false, 4, None)));
    repo.expect_queue_offline_alert().never();
    let report = block_on(monitor(repo, down_prober()).check_app(&app("a.app", Some("ops@x.io")))).unwrap();
    assert!(!report.alert_queued);
}

#[test]
fn an_outage_email_already_sent_today_is_not_sent_again() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_record()
        .returning(|_| Ok(state("a.app", false, 40, Some(noon() - Duration::hours(5)))));
    repo.expect_queue_offline_alert().never();
    let report = block_on(monitor(repo, down_prober()).check_app(&app("a.app", Some("ops@x.io")))).unwrap();
    assert!(!report.alert_queued);
}

#[test]
fn another_instance_winning_the_alert_race_means_no_second_email() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_record()
        .returning(|_| Ok(state("a.app", false, 6, Some(noon() - Duration::hours(30)))));
    repo.expect_queue_offline_alert()
        .times(1)
        .returning(|_, _, _, _| Ok(false));
    let report = block_on(monitor(repo, down_prober()).check_app(&app("a.app", Some("ops@x.io")))).unwrap();
    assert!(!report.alert_queued);
}

#[test]
fn an_app_whose_org_has_no_contact_email_gets_no_outage_email() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_record()
        .returning(|_| Ok(state("a.app", false, 5, None)));
    repo.expect_queue_offline_alert().never();
    let report = block_on(monitor(repo, down_prober()).check_app(&app("a.app", None))).unwrap();
    assert!(!report.alert_queued);
}

#[test]
fn a_timeout_is_recorded_as_timeout_without_latency() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_record()
        .withf(|o| o.health == HealthState::Timeout && o.latency_ms.is_none() && o.http_status.is_none())
        .times(1)
        .returning(|_| Ok(state("a.app", false, 1, None)));
    let mut prober = MockHealthProber::new();
    prober.expect_probe().returning(|_| Err(ProbeError::Timeout));
    block_on(monitor(repo, prober).check_app(&app("a.app", None))).unwrap();
}

#[test]
fn pruning_removes_raw_checks_older_than_48_hours() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_prune_raw_before()
        .with(eq(noon() - Duration::hours(48)))
        .times(1)
        .returning(|_| Ok(17));
    assert_eq!(
        block_on(monitor(repo, MockHealthProber::new()).prune()).unwrap(),
        17
    );
}

#[test]
fn a_developer_may_not_see_uptime_or_ping() {
    let service = service(MockUptimeRepository::new(), MockHealthProber::new());
    let dev = developer();
    assert!(matches!(
        block_on(service.status_all(&dev)),
        Err(UptimeError::Forbidden)
    ));
    assert!(matches!(
        block_on(service.month(&dev, 2026, 3, &MonthListQuery::default())),
        Err(UptimeError::Forbidden)
    ));
    assert!(matches!(
        block_on(service.app_month(&dev, &pkg("a.app"), 2026, 3)),
        Err(UptimeError::Forbidden)
    ));
    let day = noon().date_naive();
    assert!(matches!(
        block_on(service.day_problems(&dev, &pkg("a.app"), day)),
        Err(UptimeError::Forbidden)
    ));
    assert!(matches!(
        block_on(service.ping(&dev, "https://a.app.test/health")),
        Err(UptimeError::Forbidden)
    ));
}

#[test]
fn status_lists_monitored_apps_with_their_latest_badge() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_all_monitored_apps()
        .returning(|| Ok(vec![app("a.app", None), app("b.app", None)]));
    repo.expect_all_latest_status().returning(|| {
        Ok(vec![
            LatestStatus {
                package_name: pkg("a.app"),
                health: HealthState::Healthy,
                checked_at: noon(),
            },
            LatestStatus {
                package_name: pkg("old.app"),
                health: HealthState::Timeout,
                checked_at: noon(),
            },
        ])
    });
    let status = block_on(service(repo, MockHealthProber::new()).status_all(&admin())).unwrap();
    let summary: Vec<(&str, Badge, Option<HealthState>)> = status
        .iter()
        .map(|s| (s.package_name.as_str(), s.badge, s.health))
        .collect();
    assert_eq!(
        summary,
        [
            ("a.app", Badge::Online, Some(HealthState::Healthy)),
            ("b.app", Badge::Offline, None),
            ("old.app", Badge::Offline, Some(HealthState::Timeout)),
        ]
    );
    assert_eq!(status[2].name, None);
}

fn month_app(name: &str, status: AppStoreStatus) -> MonthApp {
    MonthApp {
        package_name: pkg(name),
        name: format!("App {name}"),
        store_status: status,
    }
}

#[test]
fn the_month_tab_has_a_row_per_app_with_percent_bars_and_badge() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_month_apps()
        .with(eq(YearMonth::new(2026, 3).unwrap()))
        .returning(|_| {
            Ok(vec![
                month_app("a.app", AppStoreStatus::Published),
                month_app("b.app", AppStoreStatus::Submitted),
                month_app("gone.app", AppStoreStatus::Development),
                month_app("new.app", AppStoreStatus::Published),
            ])
        });
    repo.expect_month_rollups_of()
        .withf(|month, packages| {
            *month == YearMonth::new(2026, 3).unwrap()
                && packages == [pkg("a.app"), pkg("b.app"), pkg("gone.app"), pkg("new.app")]
        })
        .returning(|_, _| {
            Ok(vec![
                rollup("b.app", 1, 1, 2),
                rollup("a.app", 2, 3, 0),
                rollup("gone.app", 3, 0, 4),
            ])
        });
    repo.expect_latest_status_of().returning(|_| {
        Ok(vec![LatestStatus {
            package_name: pkg("a.app"),
            health: HealthState::Healthy,
            checked_at: noon(),
        }])
    });
    let tab =
        block_on(service(repo, MockHealthProber::new()).month(&admin(), 2026, 3, &MonthListQuery::default()))
            .unwrap();
    let rows: Vec<(&str, f64, Badge)> = tab
        .apps
        .iter()
        .map(|r| (r.package_name.as_str(), r.view.uptime_percent, r.badge))
        .collect();
    assert_eq!(
        rows,
        [
            ("a.app", 100.0, Badge::Online),
            ("b.app", 33.3, Badge::Offline),
            ("gone.app", 0.0, Badge::Offline),
            ("new.app", 0.0, Badge::Offline),
        ]
    );
    assert!(tab.apps.iter().all(|r| r.view.bars.len() == 31));
    assert_eq!(tab.apps[0].view.bars[1].colour, DayColour::Green);
    // An app no longer monitored keeps its name; its missing store status says it is not monitored.
    assert_eq!(
        (tab.apps[2].store_status, tab.apps[2].name.as_deref()),
        (None, Some("App gone.app"))
    );
    assert_eq!(tab.apps[3].store_status, Some(AppStoreStatus::Published));
    assert_eq!(
        (tab.matching, tab.total, tab.page, tab.page_size),
        (4, 4, 1, DEFAULT_PAGE_SIZE)
    );
    assert_eq!(
        (tab.previous, tab.next),
        (YearMonth::new(2026, 2).ok(), YearMonth::new(2026, 4).ok())
    );
}

#[test]
fn the_month_tab_reads_the_days_of_its_page_only() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_month_apps().returning(|_| {
        Ok((0..60)
            .map(|i| month_app(&format!("app{i:02}.test"), AppStoreStatus::Published))
            .collect())
    });
    repo.expect_month_rollups_of()
        .withf(|_, packages| packages.len() == 25 && packages[0] == pkg("app25.test"))
        .times(1)
        .returning(|_, _| Ok(vec![]));
    repo.expect_latest_status_of()
        .withf(|packages| packages.len() == 25)
        .times(1)
        .returning(|_| Ok(vec![]));
    let query = MonthListQuery {
        page: 2,
        ..MonthListQuery::default()
    };
    let tab = block_on(service(repo, MockHealthProber::new()).month(&admin(), 2026, 3, &query)).unwrap();
    assert_eq!(tab.apps.len(), 25);
    assert_eq!((tab.matching, tab.total, tab.page), (60, 60, 2));
}

#[test]
fn a_page_past_the_end_reads_no_days_and_a_bad_page_is_refused_before_any_read() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_month_apps()
        .times(1)
        .returning(|_| Ok(vec![month_app("a.app", AppStoreStatus::Published)]));
    let service = service(repo, MockHealthProber::new());
    let past = MonthListQuery {
        page: 3,
        ..MonthListQuery::default()
    };
    let tab = block_on(service.month(&admin(), 2026, 3, &past)).unwrap();
    assert!(tab.apps.is_empty());
    assert_eq!((tab.matching, tab.total), (1, 1));
    let too_big = MonthListQuery {
        page_size: MAX_PAGE_SIZE + 1,
        ..MonthListQuery::default()
    };
    let error = block_on(service.month(&admin(), 2026, 3, &too_big)).unwrap_err();
    assert!(matches!(error, UptimeError::InvalidPage(PageError::PageSize)));
    assert_eq!(error.to_string(), "Page size must be between 1 and 100");
}

#[test]
fn a_month_out_of_range_is_a_bad_request() {
    let service = service(MockUptimeRepository::new(), MockHealthProber::new());
    let error = block_on(service.month(&admin(), 2026, 13, &MonthListQuery::default())).unwrap_err();
    assert!(matches!(error, UptimeError::InvalidMonth(MonthError::Month)));
    assert_eq!(error.to_string(), "Month must be between 1 and 12");
}

#[test]
fn an_apps_month_shows_its_state_and_a_bar_per_real_day() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_app_state()
        .returning(|_| Ok(Some(state("a.app", true, 0, None))));
    repo.expect_app_month_rollups()
        .with(eq(pkg("a.app")), eq(YearMonth::new(2028, 2).unwrap()))
        .returning(|_, _| Ok(vec![]));
    let detail =
        block_on(service(repo, MockHealthProber::new()).app_month(&admin(), &pkg("a.app"), 2028, 2)).unwrap();
    assert_eq!(detail.badge, Badge::Online);
    assert_eq!(detail.view.bars.len(), 29);
}

#[test]
fn an_app_never_checked_is_offline_with_grey_bars() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_app_state().returning(|_| Ok(None));
    repo.expect_app_month_rollups().returning(|_, _| Ok(vec![]));
    let detail =
        block_on(service(repo, MockHealthProber::new()).app_month(&admin(), &pkg("a.app"), 2026, 4)).unwrap();
    assert_eq!(detail.badge, Badge::Offline);
    assert!(detail.view.bars.iter().all(|b| b.colour == DayColour::Grey));
}

fn problem(minutes: i64) -> CheckOutcome {
    CheckOutcome::classify(
        pkg("a.app"),
        noon() - Duration::minutes(minutes),
        &Err(ProbeError::Timeout),
    )
}

#[test]
fn a_days_problems_are_listed_newest_first_with_the_days_counts() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_app_month_rollups()
        .returning(|_, _| Ok(vec![rollup("a.app", 15, 8, 2)]));
    repo.expect_problem_checks()
        .with(eq(pkg("a.app")), eq(noon().date_naive()))
        .returning(|_, _| Ok(vec![problem(30), problem(10)]));
    let day = block_on(service(repo, MockHealthProber::new()).day_problems(
        &admin(),
        &pkg("a.app"),
        noon().date_naive(),
    ))
    .unwrap();
    assert_eq!(day.problems.len(), 2);
    assert!(day.problems[0].checked_at > day.problems[1].checked_at);
    assert_eq!((day.bar.healthy, day.bar.unhealthy, day.bar.total), (8, 2, 10));
    assert_eq!(day.bar.colour, DayColour::Yellow);
    assert!(day.details_kept);
}

#[test]
fn problems_older_than_the_raw_retention_are_marked_as_no_longer_kept() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_app_month_rollups()
        .returning(|_, _| Ok(vec![rollup("a.app", 1, 0, 3)]));
    repo.expect_problem_checks().returning(|_, _| Ok(vec![]));
    let old = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
    let day =
        block_on(service(repo, MockHealthProber::new()).day_problems(&admin(), &pkg("a.app"), old)).unwrap();
    assert!(!day.details_kept);
    assert_eq!(day.bar.colour, DayColour::Red);
    let recent = (noon() - Duration::hours(47)).date_naive();
    let mut repo = MockUptimeRepository::new();
    repo.expect_app_month_rollups().returning(|_, _| Ok(vec![]));
    repo.expect_problem_checks().returning(|_, _| Ok(vec![]));
    let kept = block_on(service(repo, MockHealthProber::new()).day_problems(&admin(), &pkg("a.app"), recent))
        .unwrap();
    assert!(kept.details_kept);
    assert_eq!(kept.bar.colour, DayColour::Grey);
}

#[test]
fn the_ping_probes_only_a_registered_health_url() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_find_app_by_health_url()
        .with(eq("https://a.app.test/health"))
        .returning(|_| Ok(Some(app("a.app", None))));
    repo.expect_find_app_by_health_url().returning(|_| Ok(None));
    let mut prober = MockHealthProber::new();
    prober
        .expect_probe()
        .with(eq("https://a.app.test/health"))
        .times(1)
        .returning(|_| {
            Ok(ProbeResult {
                http_status: 200,
                body_status: Some("healthy".into()),
                latency_ms: 12,
            })
        });
    let service = service(repo, prober);
    let ping = block_on(service.ping(&admin(), " https://a.app.test/health ")).unwrap();
    assert!(ping.success);
    assert_eq!(
        (ping.http_status, ping.body_status.as_deref(), ping.health),
        (Some(200), Some("healthy"), HealthState::Healthy)
    );
    let error = block_on(service.ping(&admin(), "http://169.254.169.254/latest/meta-data")).unwrap_err();
    assert!(matches!(error, UptimeError::UnknownHealthUrl));
}

#[test]
fn a_failed_ping_reports_no_success_and_its_health() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_find_app_by_health_url()
        .returning(|_| Ok(Some(app("a.app", None))));
    let ping = block_on(service(repo, down_prober()).ping(&admin(), "https://a.app.test/health")).unwrap();
    assert!(!ping.success);
    assert_eq!(ping.health, HealthState::Unreachable);
}

#[test]
fn the_live_check_probes_the_apps_own_health_url_and_records_nothing() {
    // No repository call is expected: nothing is read or recorded.
    let mut prober = MockHealthProber::new();
    prober
        .expect_probe()
        .with(eq("https://captions.example.com/health"))
        .times(1)
        .returning(|_| {
            Ok(ProbeResult {
                http_status: 503,
                body_status: Some("starting".into()),
                latency_ms: 40,
            })
        });
    let service = service(MockUptimeRepository::new(), prober);
    let mut app = crate::apps::service::fixtures::sample_app(
        crate::common::OrgId::new(),
        crate::apps::AppStoreStatus::Published,
    );
    app.public_url = "https://captions.example.com/".into();
    let result = block_on(service.check_now(&developer(), &app)).unwrap();
    assert_eq!(result.package_name, app.package_name);
    assert!(result.success);
    assert_eq!(result.http_status, Some(503));
    assert_eq!(result.body_status.as_deref(), Some("starting"));
    assert_eq!(result.health, HealthState::Unhealthy);
    assert_eq!(result.latency_ms, Some(40));
}

#[test]
fn the_live_check_runs_once_per_app_in_ten_seconds_and_thirty_times_an_hour_per_account() {
    let mut prober = MockHealthProber::new();
    // 30 checks reach the server: one per app, the 31st app is refused by the account's limit.
    prober.expect_probe().times(30).returning(|_| {
        Ok(ProbeResult {
            http_status: 200,
            body_status: Some("healthy".into()),
            latency_ms: 5,
        })
    });
    let service = service(MockUptimeRepository::new(), prober);
    let me = developer();
    let app_named = |n: u32| {
        let mut app = crate::apps::service::fixtures::sample_app(
            crate::common::OrgId::new(),
            crate::apps::AppStoreStatus::Development,
        );
        app.package_name = PackageName::parse(&format!("com.example.app{n}")).unwrap();
        app
    };
    let first = app_named(0);
    block_on(service.check_now(&me, &first)).unwrap();
    // The same app again at once, even by someone else: refused, nothing fetched.
    let again = block_on(service.check_now(&admin(), &first)).unwrap_err();
    assert!(
        matches!(
            again,
            UptimeError::LiveCheckLimited {
                limit: LiveCheckLimit::App,
                retry_after_secs: 1..=20
            }
        ),
        "{again:?}"
    );
    assert!(again.to_string().contains("10 seconds"));
    for n in 1..30 {
        block_on(service.check_now(&me, &app_named(n))).unwrap();
    }
    let over = block_on(service.check_now(&me, &app_named(30))).unwrap_err();
    assert!(
        matches!(
            over,
            UptimeError::LiveCheckLimited {
                limit: LiveCheckLimit::Account,
                ..
            }
        ),
        "{over:?}"
    );
    assert!(over.to_string().contains("30 live health checks"));
}

#[test]
fn the_lag_is_how_long_the_most_overdue_app_has_waited_past_its_interval() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_oldest_check_slot()
        .returning(|| Ok(Some(noon() - Duration::seconds(150))));
    let lag = block_on(monitor(repo, MockHealthProber::new()).lag()).unwrap();
    // Due 60 s after its slot, so 90 s overdue at noon.
    assert_eq!(lag, Duration::seconds(90));
}

#[test]
fn a_monitor_within_its_interval_has_no_lag() {
    let mut repo = MockUptimeRepository::new();
    repo.expect_oldest_check_slot()
        .returning(|| Ok(Some(noon() - Duration::seconds(20))));
    assert_eq!(
        block_on(monitor(repo, MockHealthProber::new()).lag()).unwrap(),
        Duration::zero()
    );
    let mut empty = MockUptimeRepository::new();
    empty.expect_oldest_check_slot().returning(|| Ok(None));
    assert_eq!(
        block_on(monitor(empty, MockHealthProber::new()).lag()).unwrap(),
        Duration::zero()
    );
}
