//! Conversions between domain values and their stored forms, and diesel errors to [`RepoError`].

use chrono::{DateTime, TimeZone, Utc};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use domain::common::RepoError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Milliseconds since the Unix epoch.
#[must_use]
pub fn to_millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// The instant of a stored millisecond count.
///
/// # Errors
/// [`RepoError::Backend`] for a value outside chrono's range (a corrupt row).
pub fn from_millis(ms: i64) -> Result<DateTime<Utc>, RepoError> {
    Utc.timestamp_millis_opt(ms)
        .single()
        .ok_or_else(|| RepoError::backend("reading a timestamp", format!("{ms} is out of range")))
}

/// An optional stored instant.
///
/// # Errors
/// As [`from_millis`].
pub fn from_millis_opt(ms: Option<i64>) -> Result<Option<DateTime<Utc>>, RepoError> {
    ms.map(from_millis).transpose()
}

/// A value stored as JSON text.
///
/// # Errors
/// [`RepoError::Backend`] when the value cannot be serialised.
pub fn to_json<T: Serialize>(value: &T) -> Result<String, RepoError> {
    serde_json::to_string(value).map_err(|e| RepoError::backend("writing a JSON column", e))
}

/// A value read back from JSON text.
///
/// # Errors
/// [`RepoError::Backend`] when the stored text is not the expected shape (a corrupt row).
pub fn from_json<T: DeserializeOwned>(column: &'static str, text: &str) -> Result<T, RepoError> {
    serde_json::from_str(text).map_err(|e| RepoError::backend(format!("reading the JSON column {column}"), e))
}

/// A stored value parsed with the domain's own parser.
///
/// # Errors
/// [`RepoError::Backend`] naming the column when the stored text does not parse (a corrupt row).
pub fn parse_stored<T, E: std::fmt::Display>(
    column: &'static str,
    text: &str,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, RepoError> {
    parse(text)
        .map_err(|e| RepoError::backend(format!("reading the column {column}"), format!("`{text}`: {e}")))
}

/// Maps a diesel error: a unique violation becomes [`RepoError::Duplicate`] naming `what`; a foreign-key
/// violation becomes [`RepoError::NotFound`] (the row referred to does not exist); everything else is
/// wrapped with `context`.
pub fn db_error(context: &'static str, what: &'static str) -> impl Fn(DieselError) -> RepoError {
    move |error| match &error {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => RepoError::Duplicate(what),
        DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _) => RepoError::NotFound,
        _ => RepoError::backend(context, error),
    }
}

/// Wraps any diesel error with context (for queries where no constraint can fire).
pub fn backend(context: &'static str) -> impl Fn(DieselError) -> RepoError {
    move |error| RepoError::backend(context, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_round_trip_through_milliseconds() {
        let at = Utc.with_ymd_and_hms(2026, 2, 28, 23, 59, 59).unwrap() + chrono::Duration::milliseconds(123);
        assert_eq!(from_millis(to_millis(at)).unwrap(), at);
        assert_eq!(from_millis_opt(None).unwrap(), None);
    }

    #[test]
    fn an_out_of_range_instant_is_a_backend_error() {
        assert!(matches!(from_millis(i64::MAX), Err(RepoError::Backend { .. })));
    }

    #[test]
    fn a_corrupt_json_column_names_the_column() {
        let error = from_json::<Vec<String>>("settings", "{nope").unwrap_err();
        assert!(error.to_string().contains("settings"));
    }
}
