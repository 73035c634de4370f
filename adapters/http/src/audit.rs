//! The audit log (PRODUCT.md §9): an organization's for its admins (`/api/orgs/{orgId}/audit-log`) and the
//! platform's for platform admins (`/api/admin/audit-log`). Filters by person, action, app and dates; pages
//! by cursor, newest first; `Accept: text/csv` or `?format=csv` streams every entry that matches as CSV.

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use chrono::{DateTime, NaiveDate, Utc};
use domain::apps::PackageName;
use domain::audit::service::MAX_PAGE;
use domain::audit::{
    AuditAction, AuditCursor, AuditEntry, AuditError, AuditFilter, AuditPage, AuditQuery, AuditService,
    AuditTarget, FieldChange,
};
use domain::common::{Caller, UserId};
use domain::orgs::ActingMember;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

use crate::ApiError;
use crate::RouteSink;
use crate::auth::{OrgMember, Principal};

/// The audit log's use cases, as app data.
#[derive(Clone)]
pub struct AuditApi(pub Arc<AuditService>);

impl std::fmt::Debug for AuditApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuditApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(org_log).service(platform_log);
}

impl From<AuditError> for ApiError {
    fn from(error: AuditError) -> Self {
        let message = error.to_string();
        match error {
            AuditError::Forbidden(_) => Self::Forbidden(message),
            AuditError::Invalid(field, _) => Self::Validation {
                message: message.clone(),
                fields: BTreeMap::from([(field.to_owned(), message)]),
            },
            AuditError::Repo(cause) => cause.into(),
        }
    }
}

/// The filters, cursor and page size of a read (every one optional).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AuditLogQuery {
    /// Only the entries of this person (an account id).
    pub actor: Option<String>,
    /// Only this action code (`app.key_regenerated`, …).
    pub action: Option<String>,
    /// Only the entries about this app (a package name).
    pub app: Option<String>,
    /// Entries at or after this instant (RFC 3339) or day (`2026-03-15`, from its start, UTC).
    pub from: Option<String>,
    /// Entries before this instant (RFC 3339), or up to the end of this day (`2026-03-15`, UTC).
    pub to: Option<String>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// Entries per page, 1–200; 50 when absent. Not used by the CSV, which holds every matching entry.
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
    fn resolve(&self) -> Result<AuditQuery, ApiError> {
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
    fn wants_csv(&self, request: &HttpRequest) -> bool {
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

/// Who made a change: the account id and its e-mail address at the time. A change the server's operator
/// made (an `app-server` command, the `PORTAL_ADMIN_EMAILS` setting) has no account: `id` is `null` and
/// `email` reads "operator (…)".
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditActorDto {
    #[schema(format = Uuid)]
    pub id: Option<String>,
    pub email: String,
}

/// One entry of the audit log.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryDto {
    #[schema(format = Uuid)]
    pub id: String,
    pub at: DateTime<Utc>,
    /// `null` for a platform entry.
    #[schema(format = Uuid)]
    pub organization_id: Option<String>,
    pub actor: AuditActorDto,
    pub action: AuditAction,
    pub target: Option<AuditTarget>,
    /// The fields that changed, old and new values (never a secret).
    pub changes: Vec<FieldChange>,
    pub client_ip: Option<String>,
    pub user_agent: Option<String>,
    /// The personal access token the change was made through (its name); `null`: a signed-in session.
    pub via_token: Option<String>,
}

impl From<AuditEntry> for AuditEntryDto {
    fn from(entry: AuditEntry) -> Self {
        Self {
            id: entry.id.to_string(),
            at: entry.at,
            organization_id: entry.org_id.map(|org| org.to_string()),
            actor: AuditActorDto {
                id: entry.actor_id.map(|actor| actor.to_string()),
                email: entry.actor_email,
            },
            action: entry.action,
            target: entry.target,
            changes: entry.changes,
            client_ip: entry.client_ip,
            user_agent: entry.user_agent,
            via_token: entry.via_token,
        }
    }
}

/// A page of entries, newest first; `nextCursor` reads the next page, `null` on the last.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditPageDto {
    pub entries: Vec<AuditEntryDto>,
    pub next_cursor: Option<String>,
}

/// `{success, data}` around a page.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditPageResponse {
    pub success: bool,
    pub data: AuditPageDto,
}

impl From<AuditPage> for AuditPageResponse {
    fn from(page: AuditPage) -> Self {
        Self {
            success: true,
            data: AuditPageDto {
                entries: page.entries.into_iter().map(AuditEntryDto::from).collect(),
                next_cursor: page.next.map(|cursor| cursor.to_string()),
            },
        }
    }
}

/// The CSV's header row.
pub const CSV_HEADER: &str = "time,organizationId,actorId,actorEmail,action,targetKind,targetId,targetLabel,changes,clientIp,userAgent,viaToken\r\n";

/// One CSV field's text: a leading `=`, `+`, `-`, `@`, tab or carriage return is escaped with `'` so that
/// a spreadsheet never runs it as a formula (the row quotes every field: [`csv_row`]).
fn csv_text(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

/// One entry as a CSV row (RFC 4180, `\r\n`), every field quoted: a spreadsheet whose list separator is
/// `;` (or a tab) still reads each field as one text cell, never a formula.
#[must_use]
pub fn csv_row(entry: &AuditEntry) -> String {
    let target = entry.target.as_ref();
    let fields = [
        entry.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        entry.org_id.map(|org| org.to_string()).unwrap_or_default(),
        entry.actor_id.map(|actor| actor.to_string()).unwrap_or_default(),
        entry.actor_email.clone(),
        entry.action.code().to_owned(),
        target.map(|t| t.kind.as_str().to_owned()).unwrap_or_default(),
        target.map(|t| t.id.clone()).unwrap_or_default(),
        target.and_then(|t| t.label.clone()).unwrap_or_default(),
        serde_json::to_string(&entry.changes).unwrap_or_default(),
        entry.client_ip.clone().unwrap_or_default(),
        entry.user_agent.clone().unwrap_or_default(),
        // The personal access token the change was made through (its name), empty for a session.
        entry.via_token.clone().unwrap_or_default(),
    ];
    let mut writer = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    // Writing text into memory does not fail.
    let written = writer
        .write_record(fields.iter().map(|field| csv_text(field)))
        .ok()
        .and_then(|()| writer.into_inner().ok())
        .unwrap_or_default();
    String::from_utf8(written).unwrap_or_default()
}

/// Who reads which log: the checks are the use case's, made again for every page of the CSV.
#[derive(Clone)]
enum Reader {
    Org(ActingMember),
    Platform(Caller),
}

impl Reader {
    async fn page(&self, service: &AuditService, query: &AuditQuery) -> Result<AuditPage, AuditError> {
        match self {
            Self::Org(member) => service.org_log(member, query).await,
            Self::Platform(caller) => service.platform_log(caller, query).await,
        }
    }
}

/// The JSON page, or the CSV of every matching entry streamed page by page (the first page is read before
/// the answer starts, so that a refusal is still an error answer).
async fn answer(
    api: &AuditApi,
    reader: Reader,
    query: &AuditLogQuery,
    request: &HttpRequest,
    file_name: &str,
) -> Result<HttpResponse, ApiError> {
    let mut resolved = query.resolve()?;
    if !query.wants_csv(request) {
        let page = reader.page(&api.0, &resolved).await?;
        return Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(AuditPageResponse::from(page)));
    }
    resolved.limit = Some(MAX_PAGE);
    let first = reader.page(&api.0, &resolved).await?;
    let service = api.0.clone();
    let start = Some((Some(first), resolved, true));
    let body = futures_util::stream::unfold(start, move |state| {
        let (service, reader) = (service.clone(), reader.clone());
        async move {
            let (page, mut query, header_row) = state?;
            let page = match page {
                Some(page) => page,
                None => match reader.page(&service, &query).await {
                    Ok(page) => page,
                    Err(error) => {
                        tracing::error!(%error, "audit log CSV: a page could not be read");
                        return Some((
                            Err(std::io::Error::other("the audit log could not be read")),
                            None,
                        ));
                    }
                },
            };
            let mut chunk = if header_row {
                CSV_HEADER.to_owned()
            } else {
                String::new()
            };
            for entry in &page.entries {
                chunk.push_str(&csv_row(entry));
            }
            let next = page.next.map(|cursor| {
                query.after = Some(cursor);
                (None, query, false)
            });
            Some((Ok::<_, std::io::Error>(Bytes::from(chunk)), next))
        }
    });
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/csv; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file_name}\""),
        ))
        .streaming(body))
}

/// The organization's audit log (organization admins): newest first, by cursor; CSV with `Accept: text/csv`
/// or `?format=csv`.
#[utoipa::path(operation_id = "org_audit_log", tag = "audit", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), AuditLogQuery),
    responses(
        (status = 200, description = "A page of entries, or the CSV of every matching entry", content(
            (AuditPageResponse = "application/json"),
            (String = "text/csv"),
        )),
        (status = 400, description = "A filter, cursor or page size is invalid (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Only organization admins read the audit log", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
    ))]
#[get("/orgs/{orgId}/audit-log")]
pub async fn org_log(
    api: web::Data<AuditApi>,
    member: OrgMember,
    query: web::Query<AuditLogQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let file_name = format!("audit-log-{}.csv", member.0.org());
    answer(&api, Reader::Org(member.0), &query, &request, &file_name).await
}

/// The platform's audit log (platform admins): platform roles, the first admin, and review decisions across
/// organizations; newest first, by cursor; CSV with `Accept: text/csv` or `?format=csv`.
#[utoipa::path(operation_id = "platform_audit_log", tag = "audit", security(("bearer" = [])),
    params(AuditLogQuery),
    responses(
        (status = 200, description = "A page of entries, or the CSV of every matching entry", content(
            (AuditPageResponse = "application/json"),
            (String = "text/csv"),
        )),
        (status = 400, description = "A filter, cursor or page size is invalid (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Only platform admins read the platform's audit log", body = crate::openapi::ErrorBody),
    ))]
#[get("/admin/audit-log")]
pub async fn platform_log(
    api: web::Data<AuditApi>,
    principal: Principal,
    query: web::Query<AuditLogQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    answer(
        &api,
        Reader::Platform(principal.0),
        &query,
        &request,
        "audit-log-platform.csv",
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_never_formulas() {
        assert_eq!(csv_text("plain"), "plain");
        assert_eq!(csv_text("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_text("-1,2"), "'-1,2");
        assert_eq!(csv_text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_text("a;=1+1"), "a;=1+1");
    }

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
