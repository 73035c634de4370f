//! The month chart of one app: one bar per day of the month (real length) and the month's uptime.

use chrono::{Datelike, NaiveDate};
use serde::Serialize;

use super::calendar::YearMonth;
use super::models::{DailyRollup, DayColour, uptime_percent};

/// One day's bar with its tooltip figures (Healthy, Unhealthy, Total pings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DayBar {
    pub day: NaiveDate,
    pub colour: DayColour,
    pub healthy: u32,
    pub unhealthy: u32,
    pub total: u32,
    pub average_latency_ms: Option<u32>,
}

/// The month chart of one app.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonthView {
    pub month: YearMonth,
    /// Healthy-or-online checks over all checks of the month, one decimal; 0.0 without data.
    pub uptime_percent: f64,
    /// Exactly one bar per day of the month, in order; days without checks are grey.
    pub bars: Vec<DayBar>,
}

/// Builds the chart from one app's rollups. Rollups of other months are ignored; two rollups of one day
/// (which a repository should not return) are added together.
#[must_use]
pub fn build_month_view(month: YearMonth, rollups: &[DailyRollup]) -> MonthView {
    let mut bars: Vec<DayBar> = month
        .dates()
        .map(|day| DayBar {
            day,
            colour: DayColour::Grey,
            healthy: 0,
            unhealthy: 0,
            total: 0,
            average_latency_ms: None,
        })
        .collect();
    let mut latency: Vec<(u64, u32)> = vec![(0, 0); bars.len()];
    let (mut up, mut all) = (0u64, 0u64);
    for rollup in rollups.iter().filter(|r| month.contains(r.day)) {
        // The bars are the month's days in order, so a day's bar is at its day of the month.
        let index = rollup.day.day0() as usize;
        if index >= bars.len() {
            continue;
        }
        let bar = &mut bars[index];
        bar.healthy = bar.healthy.saturating_add(rollup.healthy);
        bar.unhealthy = bar.unhealthy.saturating_add(rollup.unhealthy);
        bar.total = bar.total.saturating_add(rollup.total);
        latency[index].0 = latency[index].0.saturating_add(rollup.latency_sum_ms);
        latency[index].1 = latency[index].1.saturating_add(rollup.latency_count);
        up += u64::from(rollup.healthy);
        all += u64::from(rollup.total);
    }
    for (bar, (sum, count)) in bars.iter_mut().zip(latency) {
        bar.colour = DayColour::of(bar.healthy, bar.total);
        bar.average_latency_ms =
            (count > 0).then(|| u32::try_from(sum / u64::from(count)).unwrap_or(u32::MAX));
    }
    MonthView {
        month,
        uptime_percent: uptime_percent(up, all),
        bars,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::PackageName;

    fn rollup(day: u32, healthy: u32, unhealthy: u32) -> DailyRollup {
        DailyRollup {
            package_name: PackageName::parse("com.example.app").unwrap(),
            day: NaiveDate::from_ymd_opt(2026, 2, day).unwrap(),
            healthy,
            unhealthy,
            total: healthy + unhealthy,
            latency_sum_ms: u64::from(healthy) * 100,
            latency_count: healthy,
        }
    }

    fn february() -> YearMonth {
        YearMonth::new(2026, 2).unwrap()
    }

    #[test]
    fn every_day_of_the_month_gets_a_bar_and_days_without_data_are_grey() {
        let view = build_month_view(february(), &[]);
        assert_eq!(view.bars.len(), 28);
        assert!(
            view.bars
                .iter()
                .all(|b| b.colour == DayColour::Grey && b.total == 0)
        );
        assert_eq!(view.uptime_percent, 0.0);
        let leap = build_month_view(YearMonth::new(2028, 2).unwrap(), &[]);
        assert_eq!(leap.bars.len(), 29);
    }

    #[test]
    fn bars_take_the_colour_and_tooltip_counts_of_their_day() {
        let view = build_month_view(february(), &[rollup(1, 10, 0), rollup(2, 4, 6), rollup(3, 0, 10)]);
        let colours: Vec<DayColour> = view.bars[..4].iter().map(|b| b.colour).collect();
        assert_eq!(
            colours,
            [
                DayColour::Green,
                DayColour::Yellow,
                DayColour::Red,
                DayColour::Grey
            ]
        );
        assert_eq!(
            (view.bars[1].healthy, view.bars[1].unhealthy, view.bars[1].total),
            (4, 6, 10)
        );
        assert_eq!(view.bars[0].average_latency_ms, Some(100));
        assert_eq!(view.bars[2].average_latency_ms, None);
    }

    #[test]
    fn the_month_percent_counts_every_check_of_the_month() {
        // 14 of 30 checks up: 46.666… → 46.7.
        let view = build_month_view(february(), &[rollup(1, 10, 0), rollup(2, 4, 6), rollup(3, 0, 10)]);
        assert_eq!(view.uptime_percent, 46.7);
    }

    #[test]
    fn rollups_of_other_months_are_ignored_and_duplicates_added() {
        let mut march = rollup(1, 5, 0);
        march.day = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        let view = build_month_view(february(), &[march, rollup(5, 1, 0), rollup(5, 0, 1)]);
        assert_eq!(view.bars[4].total, 2);
        assert_eq!(view.bars[4].colour, DayColour::Yellow);
        assert_eq!(view.bars.iter().map(|b| b.total).sum::<u32>(), 2);
        assert_eq!(view.uptime_percent, 50.0);
    }
}
