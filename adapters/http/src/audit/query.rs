//! The query of a read: filters, cursor and page size, checked field by field.

use actix_web::HttpRequest;
use actix_web::http::header;
use chrono::{DateTime, NaiveDate, Utc};
use domain::apps::PackageName;
use domain::audit::service::MAX_PAGE;
use domain::audit::{AuditAction, AuditCursor, AuditFilter, AuditQuery};
use domain::common::UserId;
use serde::Deserialize;
use std::collections::BTreeMap;
use utoipa::IntoParams;

use crate::ApiError;

/// The filters, cursor and page size of a read (every one optional).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AuditLogQuery {
    /// Only the entries of this person (an account id).
    #[param(format = Uuid)]
    pub actor: Option<String>,
    /// Only this action code (`app.key_regenerated`, …).
    #[param(value_type = Option<AuditAction>)]
    pub action: Option<String>,
    /// Only the entries about this app (a package name).
    #[param(max_length = 128, pattern = r"^[a-z0-9-]+(\.[a-z0-9-]+)*$")]
    pub app: Option<String>,
    /// Entries at or after this instant (RFC 3339) or day (`2026-03-15`, from its start, UTC).
    #[param(
        pattern = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$"
    )]
    pub from: Option<String>,
    /// Entries before this instant (RFC 3339), or up to the end of this day (`2026-03-15`, UTC).
    #[param(
        pattern = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$"
    )]
    pub to: Option<String>,
    /// The `nextCursor` of the previous page.
    #[param(pattern = r"^[0-9]{1,15}\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")]
    pub cursor: Option<String>,
    /// Entries per page, 1–200; 50 when absent. Not used by the CSV, which holds every matching entry.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<String>,
    /// `csv` for the CSV export (as `Accept: text/csv`).
    pub format: Option<String>,
}

fn invalid(field: &str, message: &str) -> ApiError {
    ApiError::Validation {
        message: message.to_owned(),
        fields: BTreeMap::from([(field.to_owned(), message.to_owned())]),
    }
}

fn present(value: Option<&String>) -> Option<&str> {
    value.map(|text| text.trim()).filter(|text| !text.is_empty())
}

/// An instant, or a day (its start, or with `end_of_day` the start of the next day).
fn instant(text: &str, end_of_day: bool) -> Option<DateTime<Utc>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at.with_timezone(&Utc));
    }
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    let day = if end_of_day { day.succ_opt()? } else { day };
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

impl AuditLogQuery {
    pub(super) fn resolve(&self) -> Result<AuditQuery, ApiError> {
        let actor = present(self.actor.as_ref())
            .map(|text| {
                text.parse::<UserId>()
                    .map_err(|_| invalid("actor", "`actor` must be an account id"))
            })
            .transpose()?;
        let action = present(self.action.as_ref())
            .map(|text| AuditAction::parse(text).ok_or_else(|| invalid("action", "Unknown action code")))
            .transpose()?;
        let app = present(self.app.as_ref())
            .map(|text| PackageName::parse(text).map_err(|_| invalid("app", "`app` must be a package name")))
            .transpose()?;
        let from = present(self.from.as_ref())
            .map(|text| {
                instant(text, false)
                    .ok_or_else(|| invalid("from", "`from` must be a date or an RFC 3339 time"))
            })
            .transpose()?;
        let to = present(self.to.as_ref())
            .map(|text| {
                instant(text, true).ok_or_else(|| invalid("to", "`to` must be a date or an RFC 3339 time"))
            })
            .transpose()?;
        let after = present(self.cursor.as_ref())
            .map(|text| AuditCursor::parse(text).ok_or_else(|| invalid("cursor", "Unknown cursor")))
            .transpose()?;
        let limit = present(self.limit.as_ref())
            .map(|text| {
                text.parse::<u32>()
                    .map_err(|_| invalid("limit", &format!("`limit` must be between 1 and {MAX_PAGE}")))
            })
            .transpose()?;
        Ok(AuditQuery {
            filter: AuditFilter {
                actor,
                action,
                app,
                from,
                to,
            },
            after,
            limit,
        })
    }

    /// Whether the caller asked for the CSV export.
    pub(super) fn wants_csv(&self, request: &HttpRequest) -> bool {
        self.format
            .as_deref()
            .is_some_and(|format| format.eq_ignore_ascii_case("csv"))
            || request
                .headers()
                .get(header::ACCEPT)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|accept| accept.to_ascii_lowercase().contains("text/csv"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_whole_utc_days_and_times_are_rfc_3339() {
        let start = instant("2026-03-15", false).unwrap();
        let end = instant("2026-03-15", true).unwrap();
        assert_eq!(start.to_rfc3339(), "2026-03-15T00:00:00+00:00");
        assert_eq!(end.to_rfc3339(), "2026-03-16T00:00:00+00:00");
        assert_eq!(
            instant("2026-03-15T10:00:00+02:00", false).unwrap().to_rfc3339(),
            "2026-03-15T08:00:00+00:00"
        );
        assert_eq!(instant("15/03/2026", false), None);
    }

    #[test]
    fn bad_filters_name_their_field() {
        for (query, field) in [
            (
                AuditLogQuery {
                    actor: Some("bob".into()),
                    ..AuditLogQuery::default()
                },
                "actor",
            ),
            (
                AuditLogQuery {
                    action: Some("app.renamed".into()),
                    ..AuditLogQuery::default()
                },
                "action",
            ),
            (
                AuditLogQuery {
                    app: Some("Not A Package".into()),
                    ..AuditLogQuery::default()
                },
                "app",
            ),
            (
                AuditLogQuery {
                    from: Some("yesterday".into()),
                    ..AuditLogQuery::default()
                },
                "from",
            ),
            (
                AuditLogQuery {
                    cursor: Some("12".into()),
                    ..AuditLogQuery::default()
                },
                "cursor",
            ),
            (
                AuditLogQuery {
                    limit: Some("-1".into()),
                    ..AuditLogQuery::default()
                },
                "limit",
            ),
        ] {
            match query.resolve() {
                Err(ApiError::Validation { fields, .. }) => assert!(fields.contains_key(field), "{field}"),
                other => panic!("{field}: {other:?}"),
            }
        }
    }
}
