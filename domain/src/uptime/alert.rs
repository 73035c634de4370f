//! Outage e-mails (PRODUCT.md §5): an app offline for 5 consecutive checks e-mails its organization's
//! contact, at most once a day.

use chrono::{DateTime, Duration, Utc};

use super::models::HealthState;
use super::ports::{AppUptimeState, MonitoredApp};
use crate::common::EmailAddress;
use crate::mail::{EmailKind, OutgoingEmail};

/// Offline checks in a row before the e-mail.
pub const OFFLINE_CHECKS_BEFORE_ALERT: u32 = 5;
/// At most one outage e-mail per app per this many hours.
pub const ALERT_EVERY_HOURS: i64 = 24;

/// Whether the state calls for an outage e-mail now: offline, at least `threshold` offline checks in a row,
/// and no e-mail within `every` (one exactly `every` ago allows another).
#[must_use]
pub fn offline_alert_due(
    state: &AppUptimeState,
    now: DateTime<Utc>,
    threshold: u32,
    every: Duration,
) -> bool {
    !state.online
        && state.consecutive_offline >= threshold
        && state.last_offline_alert_at.is_none_or(|sent| now - sent >= every)
}

fn describe(health: HealthState) -> &'static str {
    match health {
        HealthState::Healthy => "healthy",
        HealthState::Unhealthy => "an answer other than HTTP 200 with {\"status\": \"healthy\"}",
        HealthState::Unreachable => "no connection to the server",
        HealthState::Timeout => "no answer within 10 seconds",
        HealthState::Error => "a refused check (a private address, a redirect or a body over 64 KB)",
    }
}

/// The outage e-mail to the organization's contact. Its link opens the app in the portal.
#[must_use]
pub fn offline_alert_email(
    app: &MonitoredApp,
    to: &EmailAddress,
    state: &AppUptimeState,
    public_url: &str,
) -> OutgoingEmail {
    let link = format!(
        "{}/apps/{}/edit",
        public_url.trim_end_matches('/'),
        app.package_name
    );
    let text = format!(
        "Hello,\n\n{name} ({package}) is offline: its health check failed {count} times in a row. The last \
         check, at {time} UTC, found {what}.\n\nHealth URL: {url}\n\nThe portal checks this URL about once a \
         minute and expects HTTP 200 with the JSON body {{\"status\": \"healthy\"}}, as the SDK's app server \
         answers.\n\nOpen the app: {link}\n\nYou get at most one such email a day for this app.\n",
        name = app.name,
        package = app.package_name,
        count = state.consecutive_offline,
        time = state.last_checked_at.format("%Y-%m-%d %H:%M"),
        what = describe(state.health),
        url = app.health_url,
    );
    OutgoingEmail {
        kind: EmailKind::AppOffline,
        to: to.clone(),
        subject: format!("{} is offline", crate::mail::templates::one_line(&app.name)),
        text,
        link: Some(link),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::{AppStoreStatus, PackageName};
    use crate::testing::noon;

    fn state(online: bool, consecutive: u32, last_alert: Option<DateTime<Utc>>) -> AppUptimeState {
        AppUptimeState {
            package_name: PackageName::parse("com.example.app").unwrap(),
            online,
            health: if online {
                HealthState::Healthy
            } else {
                HealthState::Timeout
            },
            consecutive_offline: consecutive,
            last_checked_at: noon(),
            changed_at: noon(),
            last_offline_alert_at: last_alert,
        }
    }

    fn due(state: &AppUptimeState) -> bool {
        offline_alert_due(
            state,
            noon(),
            OFFLINE_CHECKS_BEFORE_ALERT,
            Duration::hours(ALERT_EVERY_HOURS),
        )
    }

    #[test]
    fn the_fifth_offline_check_in_a_row_calls_for_an_alert_and_the_fourth_does_not() {
        assert!(!due(&state(false, 4, None)));
        assert!(due(&state(false, 5, None)));
        assert!(due(&state(false, 12, None)));
    }

    #[test]
    fn an_online_app_never_calls_for_an_alert() {
        assert!(!due(&state(true, 0, None)));
    }

    #[test]
    fn an_alert_is_sent_at_most_once_in_24_hours() {
        assert!(!due(&state(false, 9, Some(noon() - Duration::hours(3)))));
        assert!(!due(&state(
            false,
            9,
            Some(noon() - Duration::hours(24) + Duration::seconds(1))
        )));
        assert!(due(&state(false, 9, Some(noon() - Duration::hours(24)))));
    }

    #[test]
    fn an_app_name_with_a_line_break_cannot_add_a_header_line() {
        let app = MonitoredApp {
            package_name: PackageName::parse("com.example.app").unwrap(),
            name: "Captions\r\nBcc: victim@example.com".into(),
            health_url: "https://app.example.com/health".into(),
            store_status: AppStoreStatus::Published,
            contact_email: None,
        };
        let to = EmailAddress::parse("ops@example.com").unwrap();
        let email = offline_alert_email(&app, &to, &state(false, 5, None), "https://portal.test/");
        assert_eq!(email.subject, "Captions Bcc: victim@example.com is offline");
        assert!(!email.subject.contains(['\r', '\n']));
    }

    #[test]
    fn the_alert_names_the_app_the_failure_and_links_to_it() {
        let app = MonitoredApp {
            package_name: PackageName::parse("com.example.app").unwrap(),
            name: "Captions".into(),
            health_url: "https://app.example.com/health".into(),
            store_status: AppStoreStatus::Published,
            contact_email: None,
        };
        let to = EmailAddress::parse("ops@example.com").unwrap();
        let email = offline_alert_email(&app, &to, &state(false, 5, None), "https://portal.test/");
        assert_eq!(email.kind, EmailKind::AppOffline);
        assert_eq!(email.subject, "Captions is offline");
        assert_eq!(
            email.link.as_deref(),
            Some("https://portal.test/apps/com.example.app/edit")
        );
        assert!(email.text.contains("5 times in a row"));
        assert!(email.text.contains("no answer within 10 seconds"));
        assert!(email.text.contains("2026-03-15 12:00 UTC"));
        assert!(email.text.contains("https://app.example.com/health"));
    }
}
