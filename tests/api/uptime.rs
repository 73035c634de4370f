//! The uptime API (specification §7 "Uptime", PRODUCT.md §5) on SQLite and PostgreSQL: who may read it, the
//! month view's figures against the raw checks they come from, a day's problems, and the staff ping of a
//! real local health endpoint.

use crate::helpers::TestApp;
use crate::org_fixtures::{BACKENDS, User, call, create_org, get, sign_in, sign_up};
use adapter_db::Db;
use adapter_db::repos::DieselUptimeRepository;
use app_server::admin_cli::{self, AdminCommand};
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use domain::apps::PackageName;
use domain::uptime::{CheckOutcome, HealthState, UptimeRepository};
use reqwest::Method;
use serde_json::Value;
use std::collections::BTreeMap;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

struct World {
    app: TestApp,
    developer: User,
    reviewer: User,
    org: String,
}

async fn staff(app: &TestApp, email: &str, role: &str) -> User {
    sign_up(app, email).await;
    admin_cli::run(
        &Db::connect(&app.database_url, 1).unwrap(),
        AdminCommand::Grant {
            email: email.into(),
            role: role.into(),
        },
    )
    .await
    .unwrap();
    sign_in(app, email).await
}

async fn world(backend: adapter_db::Backend) -> World {
    let app = crate::helpers::spawn_app_with(backend, &[("PORTAL_ALLOW_PRIVATE_TARGETS", "true")]).await;
    let developer = sign_up(&app, "dev@example.com").await;
    let reviewer = staff(&app, "reviewer@example.com", "reviewer").await;
    let org = create_org(&app, &developer, "Glass Works").await;
    World {
        app,
        developer,
        reviewer,
        org,
    }
}

fn insert_app(world: &World, package: &str, public_url: &str, status: &str) {
    adapter_db::testing::insert_app(
        &Db::connect(&world.app.database_url, 1).unwrap(),
        &world.org,
        &world.developer.id,
        package,
        public_url,
        status,
    );
}

fn repo(world: &World) -> DieselUptimeRepository {
    DieselUptimeRepository::new(Db::connect(&world.app.database_url, 1).unwrap())
}

fn check(package: &str, at: DateTime<Utc>, health: HealthState) -> CheckOutcome {
    CheckOutcome {
        package_name: PackageName::parse(package).unwrap(),
        checked_at: at,
        healthy: health == HealthState::Healthy,
        online: health == HealthState::Healthy,
        http_status: match health {
            HealthState::Healthy => Some(200),
            HealthState::Unhealthy => Some(500),
            _ => None,
        },
        latency_ms: Some(12),
        health,
    }
}

/// A health endpoint on loopback answering every request with `status` and `body`.
async fn health_server(status: &'static str, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    format!("http://{address}")
}

#[tokio::test]
async fn only_platform_staff_read_uptime_and_nobody_anonymous() {
    for backend in BACKENDS {
        let world = world(backend).await;
        insert_app(
            &world,
            "com.example.watched",
            "https://watched.example.com",
            "PUBLISHED",
        );
        let paths = [
            "/api/app-uptime/status",
            "/api/app-uptime/get-app-uptime-days?month=2&year=2026",
            "/api/app-uptime/apps/com.example.watched?month=2&year=2026",
            "/api/app-uptime/apps/com.example.watched/days/2026-02-03",
            "/api/app-uptime/ping?url=https%3A%2F%2Fwatched.example.com%2Fhealth",
        ];
        for path in paths {
            let (status, body) = call(&world.app, Method::GET, path, None, None, None).await;
            assert_eq!(status, 401, "{backend:?} anonymous {path}: {body}");
            let (status, body) = get(&world.app, path, &world.developer).await;
            assert_eq!(status, 403, "{backend:?} developer {path}: {body}");
            assert_eq!(body["error"], "Platform admin access required", "{path}");
        }
        let (status, body) = get(&world.app, paths[0], &world.reviewer).await;
        assert_eq!(status, 200, "{body}");
        let apps = body["apps"].as_array().unwrap();
        assert_eq!(apps.len(), 1, "{body}");
        assert_eq!(apps[0]["packageName"], "com.example.watched");
        assert_eq!(apps[0]["healthStatus"], "unknown");
        assert_eq!(apps[0]["online"], false);
    }
}

#[tokio::test]
async fn the_month_view_adds_up_the_raw_checks_of_each_utc_day() {
    for backend in BACKENDS {
        let world = world(backend).await;
        insert_app(
            &world,
            "com.example.alpha",
            "https://alpha.example.com",
            "PUBLISHED",
        );
        insert_app(
            &world,
            "com.example.beta",
            "https://beta.example.com",
            "SUBMITTED",
        );
        insert_app(
            &world,
            "com.example.draft",
            "https://draft.example.com",
            "DEVELOPMENT",
        );
        // February 2026: checks around midnight UTC, a mixed day, a red day, days without data.
        let at =
            |day: u32, hour: u32, minute: u32| Utc.with_ymd_and_hms(2026, 2, day, hour, minute, 0).unwrap();
        let mut raw = Vec::new();
        for (day, hour, minute, health) in [
            (1, 0, 0, HealthState::Healthy),
            (1, 23, 59, HealthState::Healthy),
            (2, 0, 0, HealthState::Unhealthy),
            (2, 12, 0, HealthState::Healthy),
            (2, 13, 0, HealthState::Timeout),
            (3, 8, 0, HealthState::Unreachable),
            (28, 23, 59, HealthState::Healthy),
        ] {
            raw.push(check("com.example.alpha", at(day, hour, minute), health));
        }
        raw.push(check("com.example.beta", at(14, 9, 30), HealthState::Healthy));
        // Outside the month: must not count.
        raw.push(check(
            "com.example.alpha",
            Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap(),
            HealthState::Unhealthy,
        ));
        raw.push(check(
            "com.example.alpha",
            Utc.with_ymd_and_hms(2026, 1, 31, 23, 59, 59).unwrap(),
            HealthState::Unhealthy,
        ));
        let repo = repo(&world);
        for outcome in &raw {
            repo.record(outcome).await.unwrap();
        }

        let (status, body) = get(
            &world.app,
            "/api/app-uptime/get-app-uptime-days?month=2&year=2026",
            &world.reviewer,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["daysInMonth"], 28);
        assert_eq!(body["month"], serde_json::json!({"year": 2026, "month": 2}));
        assert_eq!(body["previous"], serde_json::json!({"year": 2026, "month": 1}));
        let rows: BTreeMap<&str, &Value> = body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| (row["packageName"].as_str().unwrap(), row))
            .collect();
        // Monitored apps only (SUBMITTED, PUBLISHED), or apps with checks in the month.
        assert_eq!(
            rows.keys().copied().collect::<Vec<_>>(),
            ["com.example.alpha", "com.example.beta"]
        );
        for (package, row) in &rows {
            let days = row["days"].as_array().unwrap();
            assert_eq!(days.len(), 28, "{package}: one bar per day of a 28-day February");
            let (mut up, mut all) = (0u32, 0u32);
            for bar in days {
                let date = NaiveDate::parse_from_str(bar["date"].as_str().unwrap(), "%Y-%m-%d").unwrap();
                let of_day: Vec<&CheckOutcome> = raw
                    .iter()
                    .filter(|c| c.package_name.as_str() == *package && c.checked_at.date_naive() == date)
                    .collect();
                let healthy = u32::try_from(of_day.iter().filter(|c| c.healthy).count()).unwrap();
                let total = u32::try_from(of_day.len()).unwrap();
                assert_eq!(bar["healthy"], healthy, "{package} {date}");
                assert_eq!(bar["unhealthy"], total - healthy, "{package} {date}");
                assert_eq!(bar["total"], total, "{package} {date}");
                let colour = match (healthy, total) {
                    (_, 0) => "grey",
                    (h, t) if h == t => "green",
                    (0, _) => "red",
                    _ => "yellow",
                };
                assert_eq!(bar["colour"], colour, "{package} {date}");
                up += healthy;
                all += total;
            }
            let percent = (f64::from(up) * 1000.0 / f64::from(all)).round() / 10.0;
            assert_eq!(row["uptimePercent"].as_f64().unwrap(), percent, "{package}");
        }
        // alpha: 4 healthy of 7 in February.
        assert_eq!(rows["com.example.alpha"]["uptimePercent"].as_f64(), Some(57.1));
        assert_eq!(rows["com.example.alpha"]["appStoreStatus"], "PUBLISHED");
        // The latest check overall (1 March, unhealthy) gives today's badge.
        assert_eq!(rows["com.example.alpha"]["online"], false);
        assert_eq!(rows["com.example.beta"]["online"], true);

        // A leap-year February has 29 bars; a month without checks is all grey and 0 %.
        let (status, body) = get(
            &world.app,
            "/api/app-uptime/get-app-uptime-days?month=2&year=2028",
            &world.reviewer,
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(body["daysInMonth"], 29);
        let alpha = body["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["packageName"] == "com.example.alpha")
            .unwrap();
        assert_eq!(alpha["days"].as_array().unwrap().len(), 29);
        assert_eq!(alpha["uptimePercent"].as_f64(), Some(0.0));
        assert!(
            alpha["days"]
                .as_array()
                .unwrap()
                .iter()
                .all(|d| d["colour"] == "grey")
        );

        // The detail view of one app reads the same figures.
        let (status, detail) = get(
            &world.app,
            "/api/app-uptime/apps/com.example.alpha?month=2&year=2026",
            &world.reviewer,
        )
        .await;
        assert_eq!(status, 200, "{detail}");
        assert_eq!(
            detail["uptimePercent"],
            rows["com.example.alpha"]["uptimePercent"]
        );
        assert_eq!(detail["days"], rows["com.example.alpha"]["days"]);
        assert_eq!(detail["healthStatus"], "unhealthy");
        // The two checks recorded last (1 March, then 31 January) both failed.
        assert_eq!(detail["consecutiveOffline"], 2);

        for bad in [
            "month=13&year=2026",
            "month=0&year=2026",
            "month=x&year=2026",
            "month=2&year=1969",
        ] {
            let (status, body) = get(
                &world.app,
                &format!("/api/app-uptime/get-app-uptime-days?{bad}"),
                &world.reviewer,
            )
            .await;
            assert_eq!(
                (status, body["code"].as_str()),
                (400, Some("INVALID_MONTH")),
                "{bad}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn the_month_view_is_paged_searched_and_filtered_on_the_server() {
    for backend in BACKENDS {
        let world = world(backend).await;
        for i in 0..30 {
            let status = if i % 3 == 0 { "SUBMITTED" } else { "PUBLISHED" };
            insert_app(
                &world,
                &format!("com.fleet.app{i:02}"),
                &format!("https://app{i:02}.example.com"),
                status,
            );
        }
        insert_app(
            &world,
            "com.example.draft",
            "https://draft.example.com",
            "DEVELOPMENT",
        );
        let page = |query: &str| format!("/api/app-uptime/get-app-uptime-days?month=2&year=2026&{query}");
        let packages = |body: &Value| -> Vec<String> {
            body["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row["packageName"].as_str().unwrap().to_owned())
                .collect()
        };

        let (status, first) = get(&world.app, &page(""), &world.reviewer).await;
        assert_eq!(status, 200, "{first}");
        assert_eq!(packages(&first).len(), 25, "25 apps a page by default");
        assert_eq!(packages(&first)[0], "com.fleet.app00");
        assert_eq!(
            (
                &first["matching"],
                &first["total"],
                &first["page"],
                &first["pageSize"]
            ),
            (
                &Value::from(30),
                &Value::from(30),
                &Value::from(1),
                &Value::from(25)
            )
        );
        let (_, second) = get(&world.app, &page("page=2"), &world.reviewer).await;
        assert_eq!(
            packages(&second),
            (25..30)
                .map(|i| format!("com.fleet.app{i:02}"))
                .collect::<Vec<_>>()
        );
        let (_, past) = get(&world.app, &page("page=3"), &world.reviewer).await;
        assert!(packages(&past).is_empty(), "{past}");
        assert_eq!(past["matching"], 30);

        let (_, found) = get(&world.app, &page("search=APP1&pageSize=100"), &world.reviewer).await;
        assert_eq!(packages(&found).len(), 10, "app10–app19: {found}");
        assert_eq!(
            (&found["matching"], &found["total"]),
            (&Value::from(10), &Value::from(30))
        );
        let (_, submitted) = get(
            &world.app,
            &page("status=SUBMITTED&pageSize=100"),
            &world.reviewer,
        )
        .await;
        assert_eq!(packages(&submitted).len(), 10);
        assert!(
            submitted["data"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["appStoreStatus"] == "SUBMITTED")
        );
        let (_, both) = get(&world.app, &page("status=published&search=app0"), &world.reviewer).await;
        assert_eq!(
            packages(&both),
            ["01", "02", "04", "05", "07", "08"].map(|n| format!("com.fleet.app{n}"))
        );

        for (bad, code) in [
            ("page=0", "INVALID_PAGE"),
            ("page=-1", "INVALID_PAGE"),
            ("page=x", "INVALID_PAGE"),
            ("pageSize=0", "INVALID_PAGE"),
            ("pageSize=101", "INVALID_PAGE"),
            ("status=REJECTED", "INVALID_STATUS"),
        ] {
            let (status, body) = get(&world.app, &page(bad), &world.reviewer).await;
            assert_eq!(
                (status, body["code"].as_str()),
                (400, Some(code)),
                "{bad}: {body}"
            );
            assert!(
                body["error"].as_str().is_some_and(|e| !e.is_empty()),
                "{bad}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn a_day_lists_its_problems_newest_first_while_raw_checks_are_kept() {
    for backend in BACKENDS {
        let world = world(backend).await;
        insert_app(
            &world,
            "com.example.alpha",
            "https://alpha.example.com",
            "PUBLISHED",
        );
        let now = Utc::now();
        // Today (UTC), early enough to be before now.
        let midnight = now.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
        let span = (now - midnight).num_seconds().max(4);
        let at = |part: i64| midnight + Duration::seconds(span * part / 4);
        let repo = repo(&world);
        repo.record(&check("com.example.alpha", at(1), HealthState::Unhealthy))
            .await
            .unwrap();
        repo.record(&check("com.example.alpha", at(2), HealthState::Healthy))
            .await
            .unwrap();
        repo.record(&check("com.example.alpha", at(3), HealthState::Timeout))
            .await
            .unwrap();
        let day = now.date_naive();
        let (status, body) = get(
            &world.app,
            &format!("/api/app-uptime/apps/com.example.alpha/days/{day}"),
            &world.reviewer,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            (body["healthy"].as_u64(), body["total"].as_u64()),
            (Some(1), Some(3))
        );
        assert_eq!(body["colour"], "yellow");
        assert_eq!(body["detailsKept"], true);
        let problems = body["problems"].as_array().unwrap();
        assert_eq!(problems.len(), 2, "{body}");
        assert_eq!(problems[0]["health"], "timeout");
        assert_eq!(problems[1]["health"], "unhealthy");
        assert_eq!(problems[1]["httpStatus"], 500);
        assert_eq!(problems[0]["onlineStatus"], false);

        // A day past the 48-hour retention keeps its counts only; a day without checks is grey.
        let (status, body) = get(
            &world.app,
            "/api/app-uptime/apps/com.example.alpha/days/2026-02-03",
            &world.reviewer,
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(
            (body["total"].as_u64(), body["colour"].as_str()),
            (Some(0), Some("grey"))
        );
        assert_eq!(body["detailsKept"], false);
        for bad in ["2026-02-30", "yesterday", "1969-12-31"] {
            let (status, body) = get(
                &world.app,
                &format!("/api/app-uptime/apps/com.example.alpha/days/{bad}"),
                &world.reviewer,
            )
            .await;
            assert_eq!(
                (status, body["code"].as_str()),
                (400, Some("INVALID_DAY")),
                "{bad}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn the_staff_ping_checks_registered_health_urls_only() {
    for backend in BACKENDS {
        let world = world(backend).await;
        let healthy = health_server("200 OK", r#"{"status":"healthy"}"#).await;
        let failing = health_server("500 Internal Server Error", r#"{"status":"down"}"#).await;
        insert_app(&world, "com.example.up", &healthy, "SUBMITTED");
        insert_app(&world, "com.example.down", &failing, "PUBLISHED");
        let ping = |url: String| {
            let app = &world.app;
            let reviewer = &world.reviewer;
            async move {
                let encoded: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
                get(app, &format!("/api/app-uptime/ping?url={encoded}"), reviewer).await
            }
        };
        let (status, body) = ping(format!("{healthy}/health")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["success"], true);
        assert_eq!(body["status"], 200);
        assert_eq!(body["data"]["status"], "healthy");
        assert_eq!(body["health"], "healthy");
        assert_eq!(body["online"], true);
        assert_eq!(body["packageName"], "com.example.up");

        let (status, body) = ping(format!("{failing}/health")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["status"], 500);
        assert_eq!(body["health"], "unhealthy");
        assert_eq!(body["online"], false);

        // Anything that is not a registered app's health URL is never fetched.
        let stranger = health_server("200 OK", r#"{"status":"healthy"}"#).await;
        let (status, body) = ping(format!("{stranger}/health")).await;
        assert_eq!(status, 404, "{body}");
        let (status, body) = ping(healthy.clone()).await;
        assert_eq!(status, 404, "the server URL itself is not a health URL: {body}");
        let (status, body) = get(&world.app, "/api/app-uptime/ping", &world.reviewer).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("URL_REQUIRED")),
            "{body}"
        );
        // A ping is not recorded.
        let (_, status_body) = get(&world.app, "/api/app-uptime/status", &world.reviewer).await;
        assert!(
            status_body["apps"]
                .as_array()
                .unwrap()
                .iter()
                .all(|app| app["healthStatus"] == "unknown"),
            "{status_body}"
        );
    }
}

#[tokio::test]
async fn a_member_checks_their_own_apps_server_live_and_nobody_elses() {
    for backend in BACKENDS {
        let world = world(backend).await;
        let healthy = health_server("200 OK", r#"{"status":"healthy"}"#).await;
        insert_app(&world, "com.example.mine", &healthy, "DEVELOPMENT");
        let path = "/api/dev/apps/com.example.mine/health-check";
        let (status, body) = call(
            &world.app,
            Method::GET,
            path,
            Some(&world.developer.token),
            Some(&world.org),
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["health"], "healthy");
        assert_eq!(body["online"], true);
        assert_eq!(body["status"], 200);
        assert_eq!(body["data"]["status"], "healthy");
        // Nothing is recorded: the app was never checked by the monitor.
        let (_, states) = get(&world.app, "/api/app-uptime/status", &world.reviewer).await;
        assert!(
            states["apps"]
                .as_array()
                .unwrap()
                .iter()
                .all(|app| app["healthStatus"] == "unknown"),
            "{states}"
        );
        // Not a member of the organization: refused before anything is fetched; no such app: 404.
        let (status, _) = call(
            &world.app,
            Method::GET,
            path,
            Some(&world.reviewer.token),
            Some(&world.org),
            None,
        )
        .await;
        assert_eq!(status, 403);
        let (status, _) = call(
            &world.app,
            Method::GET,
            "/api/dev/apps/com.example.nothing/health-check",
            Some(&world.developer.token),
            Some(&world.org),
            None,
        )
        .await;
        assert_eq!(status, 404);
    }
}

#[tokio::test]
async fn the_live_check_refuses_private_servers_unless_allowed() {
    let app = crate::helpers::spawn_app_with(adapter_db::Backend::Sqlite, &[]).await;
    let developer = sign_up(&app, "dev@example.com").await;
    let org = create_org(&app, &developer, "Glass Works").await;
    let healthy = health_server("200 OK", r#"{"status":"healthy"}"#).await;
    adapter_db::testing::insert_app(
        &Db::connect(&app.database_url, 1).unwrap(),
        &org,
        &developer.id,
        "com.example.local",
        &healthy,
        "DEVELOPMENT",
    );
    let (status, body) = call(
        &app,
        Method::GET,
        "/api/dev/apps/com.example.local/health-check",
        Some(&developer.token),
        Some(&org),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["health"], "error");
    assert_eq!(body["online"], false);
}

#[tokio::test]
async fn the_live_check_runs_once_per_app_in_ten_seconds_and_thirty_times_an_hour_per_account() {
    for backend in BACKENDS {
        let world = world(backend).await;
        let healthy = health_server("200 OK", r#"{"status":"healthy"}"#).await;
        let live_check = |package: String| {
            let (app, token, org) = (&world.app, world.developer.token.clone(), world.org.clone());
            async move {
                let response = app
                    .send(
                        app.client
                            .get(app.url(&format!("/api/dev/apps/{package}/health-check")))
                            .bearer_auth(token)
                            .header("x-org-id", org),
                    )
                    .await;
                let status = response.status().as_u16();
                let retry_after: Option<u64> = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok());
                let body: serde_json::Value = response.json().await.unwrap();
                (status, retry_after, body)
            }
        };
        for n in 0..31 {
            insert_app(&world, &format!("com.example.app{n}"), &healthy, "DEVELOPMENT");
        }
        let (status, _, body) = live_check("com.example.app0".into()).await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        let (status, retry_after, body) = live_check("com.example.app0".into()).await;
        assert_eq!(status, 429, "{backend:?}: {body}");
        assert_eq!(body["code"], "RATE_LIMITED");
        assert!(body["error"].as_str().unwrap().contains("10 seconds"), "{body}");
        assert!(matches!(retry_after, Some(1..=20)), "{retry_after:?}");
        // Each refusal still counts as an attempt of the account: 2 so far.
        for n in 1..29 {
            let (status, _, body) = live_check(format!("com.example.app{n}")).await;
            assert_eq!(status, 200, "{backend:?} {n}: {body}");
        }
        let (status, retry_after, body) = live_check("com.example.app30".into()).await;
        assert_eq!(status, 429, "{backend:?}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("30 live health checks"),
            "{body}"
        );
        assert!(retry_after.is_some_and(|s| s > 0), "{retry_after:?}");
    }
}
