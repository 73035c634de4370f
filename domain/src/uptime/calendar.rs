//! Months of the uptime charts. Days are UTC days.
//!
//! The specification's per-app row chart used a fixed days-per-month table (February 28, with 29 in a
//! leap-year entry) while its detail chart used the real length. PRODUCT.md §5 settles it: both charts use
//! the real length of the month, so the fixed table is not used anywhere; [`days_in_month`] is the only
//! source of month lengths.

use chrono::{Datelike, NaiveDate};
use serde::Serialize;
use std::fmt;

/// Earliest and latest years the charts accept.
pub const MIN_YEAR: i32 = 1970;
pub const MAX_YEAR: i32 = 9999;

/// Whether `year` is a Gregorian leap year (divisible by 4, except centuries not divisible by 400).
#[must_use]
pub const fn is_leap_year(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// The real number of days of a month (`month` 1–12); `None` for another month number.
#[must_use]
pub const fn days_in_month(year: i32, month: u32) -> Option<u32> {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 if is_leap_year(year) => Some(29),
        2 => Some(28),
        _ => None,
    }
}

/// Why a month was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MonthError {
    #[error("Month must be between 1 and 12")]
    Month,
    #[error("Year must be between 1970 and 9999")]
    Year,
}

/// A calendar month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct YearMonth {
    year: i32,
    month: u32,
}

impl YearMonth {
    /// # Errors
    /// [`MonthError::Month`] unless `month` is 1–12; [`MonthError::Year`] unless `year` is 1970–9999.
    pub const fn new(year: i32, month: u32) -> Result<Self, MonthError> {
        if month < 1 || month > 12 {
            return Err(MonthError::Month);
        }
        if year < MIN_YEAR || year > MAX_YEAR {
            return Err(MonthError::Year);
        }
        Ok(Self { year, month })
    }

    /// Reads the `month` and `year` query parameters.
    ///
    /// # Errors
    /// [`MonthError`] when either is not a number in range.
    pub fn parse(year: &str, month: &str) -> Result<Self, MonthError> {
        let month = month.trim().parse::<u32>().map_err(|_| MonthError::Month)?;
        let year = year.trim().parse::<i32>().map_err(|_| MonthError::Year)?;
        Self::new(year, month)
    }

    /// The month holding a date.
    #[must_use]
    pub fn of(date: NaiveDate) -> Self {
        Self {
            year: date.year(),
            month: date.month(),
        }
    }

    #[must_use]
    pub const fn year(self) -> i32 {
        self.year
    }

    #[must_use]
    pub const fn month(self) -> u32 {
        self.month
    }

    /// The real number of days.
    #[must_use]
    pub const fn days(self) -> u32 {
        match days_in_month(self.year, self.month) {
            Some(days) => days,
            None => 30,
        }
    }

    /// Day `day` (1-based) of the month; `None` outside it.
    #[must_use]
    pub fn day(self, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(self.year, self.month, day)
    }

    /// Every date of the month, in order.
    pub fn dates(self) -> impl Iterator<Item = NaiveDate> {
        (1..=self.days()).filter_map(move |d| self.day(d))
    }

    #[must_use]
    pub fn contains(self, date: NaiveDate) -> bool {
        Self::of(date) == self
    }

    /// The month before; `None` before January 1970.
    #[must_use]
    pub fn previous(self) -> Option<Self> {
        if self.month == 1 {
            Self::new(self.year - 1, 12).ok()
        } else {
            Self::new(self.year, self.month - 1).ok()
        }
    }

    /// The month after; `None` after December 9999.
    #[must_use]
    pub fn next(self) -> Option<Self> {
        if self.month == 12 {
            Self::new(self.year + 1, 1).ok()
        } else {
            Self::new(self.year, self.month + 1).ok()
        }
    }
}

impl fmt::Display for YearMonth {
    /// `2026-03`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ym(year: i32, month: u32) -> YearMonth {
        YearMonth::new(year, month).unwrap()
    }

    #[test]
    fn months_have_their_real_length() {
        let lengths: Vec<u32> = (1..=12).map(|m| days_in_month(2026, m).unwrap()).collect();
        assert_eq!(lengths, [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
        assert_eq!(days_in_month(2026, 0), None);
        assert_eq!(days_in_month(2026, 13), None);
    }

    #[test]
    fn february_has_29_days_in_leap_years_including_2000_but_not_1900_or_2100() {
        assert_eq!(days_in_month(2024, 2), Some(29));
        assert_eq!(days_in_month(2028, 2), Some(29));
        assert_eq!(days_in_month(2000, 2), Some(29));
        assert_eq!(days_in_month(1900, 2), Some(28));
        assert_eq!(days_in_month(2100, 2), Some(28));
        assert_eq!(days_in_month(2025, 2), Some(28));
        assert!(is_leap_year(2400) && !is_leap_year(2023));
    }

    #[test]
    fn a_leap_february_lists_29_dates() {
        let dates: Vec<NaiveDate> = ym(2028, 2).dates().collect();
        assert_eq!(dates.len(), 29);
        assert_eq!(dates.last().copied(), NaiveDate::from_ymd_opt(2028, 2, 29));
    }

    #[test]
    fn navigating_past_december_or_january_wraps_the_year() {
        assert_eq!(ym(2026, 12).next(), Some(ym(2027, 1)));
        assert_eq!(ym(2026, 1).previous(), Some(ym(2025, 12)));
        assert_eq!(ym(2026, 6).next(), Some(ym(2026, 7)));
        assert_eq!(ym(2026, 6).previous(), Some(ym(2026, 5)));
    }

    #[test]
    fn navigation_stops_at_the_accepted_years() {
        assert_eq!(ym(1970, 1).previous(), None);
        assert_eq!(ym(9999, 12).next(), None);
    }

    #[test]
    fn a_month_out_of_range_is_refused_with_a_message() {
        assert_eq!(YearMonth::new(2026, 0), Err(MonthError::Month));
        assert_eq!(YearMonth::new(2026, 13), Err(MonthError::Month));
        assert_eq!(YearMonth::new(1969, 12), Err(MonthError::Year));
        assert_eq!(MonthError::Month.to_string(), "Month must be between 1 and 12");
    }

    #[test]
    fn query_parameters_are_parsed() {
        assert_eq!(YearMonth::parse(" 2026 ", "3"), Ok(ym(2026, 3)));
        assert_eq!(YearMonth::parse("2026", "March"), Err(MonthError::Month));
        assert_eq!(YearMonth::parse("twenty", "3"), Err(MonthError::Year));
        assert_eq!(ym(2026, 3).to_string(), "2026-03");
    }

    #[test]
    fn a_month_contains_only_its_own_dates() {
        let march = ym(2026, 3);
        assert!(march.contains(NaiveDate::from_ymd_opt(2026, 3, 31).unwrap()));
        assert!(!march.contains(NaiveDate::from_ymd_opt(2026, 4, 1).unwrap()));
        assert!(!march.contains(NaiveDate::from_ymd_opt(2025, 3, 15).unwrap()));
        assert_eq!(
            YearMonth::of(NaiveDate::from_ymd_opt(2026, 3, 15).unwrap()),
            march
        );
    }
}
