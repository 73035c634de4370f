//! The audit log (PRODUCT.md §9): an organization's for its admins (`/api/orgs/{orgId}/audit-log`) and the
//! platform's for platform admins (`/api/admin/audit-log`). Filters by person, action, app and dates; pages
//! by cursor, newest first; `Accept: text/csv` or `?format=csv` streams every entry that matches as CSV.

mod csv;
mod dto;
mod query;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use domain::audit::service::MAX_PAGE;
use domain::audit::{AuditError, AuditPage, AuditQuery, AuditService};
use domain::common::Caller;
use domain::orgs::ActingMember;
use std::sync::Arc;

use crate::ApiError;
use crate::RouteSink;
use crate::auth::{OrgMember, Principal};

use csv::{CSV_HEADER, csv_row};
use dto::AuditPageResponse;
use query::AuditLogQuery;

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
