//! Webhook endpoints and deliveries (`webhook_endpoints`, `webhook_deliveries`): [`rows::enqueue`], which
//! the repositories of the changes that cause events call inside their own transaction (through the audit
//! log's `append`), and [`DieselWebhookRepository`], the port of the Webhooks page and the delivery worker.
//!
//! Claims lease a delivery as the e-mail outbox does (`outbox.rs`): a conditional `UPDATE` of a row read as
//! due, counted by its row count, so that two instances never attempt one delivery at once. The bound per
//! endpoint counts the leases alive when a claim is made; two instances claiming in the same instant may
//! exceed it by one each.

pub mod rows;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, OrgId, RepoError};
use domain::webhooks::ports::{AttemptRecord, ClaimedDelivery, DeliveryBacklog};
use domain::webhooks::{
    DeliveryStatus, DisabledReason, EventFilter, MAX_ENDPOINTS_PER_ORG, SigningSecrets, WebhookDelivery,
    WebhookEndpoint, WebhookEndpointId, WebhookEvent, WebhookEventType, WebhookRepository, WebhookSecret,
};
use uuid::Uuid;

use super::audit::append;
use crate::convert::{backend, db_error, from_json, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::schema::{accounts, org_members, webhook_deliveries, webhook_endpoints};
use crate::{Db, DbConnection, outbox_rows};

/// What a delivery given up because its endpoint is disabled says.
const ENDPOINT_DISABLED: &str = "not sent: the endpoint is disabled";

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = webhook_endpoints)]
struct EndpointRow {
    id: String,
    org_id: String,
    url: String,
    description: String,
    events: String,
    enabled: bool,
    disabled_reason: Option<String>,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_until: Option<i64>,
    created_at: i64,
    updated_at: i64,
    failing_since: Option<i64>,
    last_attempt_at: Option<i64>,
    last_attempt_ok: Option<bool>,
}

impl EndpointRow {
    fn into_domain(self) -> Result<WebhookEndpoint, RepoError> {
        Ok(WebhookEndpoint {
            id: WebhookEndpointId(parse_stored("webhook_endpoints.id", &self.id, Uuid::parse_str)?),
            org_id: parse_stored("webhook_endpoints.org_id", &self.org_id, str::parse::<OrgId>)?,
            url: self.url,
            description: self.description,
            events: EventFilter::from_stored(&self.events),
            enabled: self.enabled,
            disabled_reason: self
                .disabled_reason
                .as_deref()
                .map(|text| {
                    parse_stored("webhook_endpoints.disabled_reason", text, |t| {
                        DisabledReason::parse(t).ok_or("unknown reason")
                    })
                })
                .transpose()?,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
            failing_since: from_millis_opt(self.failing_since)?,
            last_attempt_at: from_millis_opt(self.last_attempt_at)?,
            last_attempt_ok: self.last_attempt_ok,
            previous_secret_until: from_millis_opt(self.previous_secret_until)?,
        })
    }

    fn secrets(&self) -> Result<SigningSecrets, RepoError> {
        let current = parse_stored("webhook_endpoints.secret", &self.secret, WebhookSecret::parse)?;
        let previous = match (&self.previous_secret, self.previous_secret_until) {
            (Some(text), Some(until)) => Some((
                parse_stored("webhook_endpoints.previous_secret", text, WebhookSecret::parse)?,
                from_millis(until)?,
            )),
            _ => None,
        };
        Ok(SigningSecrets { current, previous })
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = webhook_deliveries)]
struct DeliveryRow {
    id: String,
    endpoint_id: String,
    org_id: String,
    event_type: String,
    event_at: i64,
    data: String,
    created_at: i64,
    status: String,
    attempts: i32,
    next_attempt_at: Option<i64>,
    lease_until: Option<i64>,
    last_attempt_at: Option<i64>,
    last_status: Option<i32>,
    last_duration_ms: Option<i32>,
    last_response: Option<String>,
    last_error: Option<String>,
}

impl DeliveryRow {
    fn into_domain(self) -> Result<WebhookDelivery, RepoError> {
        let org_id = parse_stored("webhook_deliveries.org_id", &self.org_id, str::parse::<OrgId>)?;
        Ok(WebhookDelivery {
            id: self.id,
            endpoint_id: WebhookEndpointId(parse_stored(
                "webhook_deliveries.endpoint_id",
                &self.endpoint_id,
                Uuid::parse_str,
            )?),
            event: WebhookEvent {
                event_type: parse_stored("webhook_deliveries.event_type", &self.event_type, |t| {
                    WebhookEventType::parse(t).ok_or("unknown event type")
                })?,
                org_id,
                at: from_millis(self.event_at)?,
                data: from_json("webhook_deliveries.data", &self.data)?,
            },
            created_at: from_millis(self.created_at)?,
            status: parse_stored("webhook_deliveries.status", &self.status, |t| {
                DeliveryStatus::parse(t).ok_or("unknown status")
            })?,
            attempts: u32::try_from(self.attempts).unwrap_or_default(),
            next_attempt_at: from_millis_opt(self.next_attempt_at)?,
            last_attempt_at: from_millis_opt(self.last_attempt_at)?,
            last_status: self.last_status.and_then(|s| u16::try_from(s).ok()),
            last_duration_ms: self.last_duration_ms.and_then(|d| u32::try_from(d).ok()),
            last_response: self.last_response,
            last_error: self.last_error,
        })
    }
}

fn expect_one(changed: usize) -> Result<(), RepoError> {
    if changed == 0 {
        Err(RepoError::NotFound)
    } else {
        Ok(())
    }
}

fn int(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

/// [`WebhookRepository`] on diesel.
#[derive(Debug, Clone)]
pub struct DieselWebhookRepository {
    db: Db,
}

impl DieselWebhookRepository {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

fn endpoint_of(
    conn: &mut DbConnection,
    org: OrgId,
    id: WebhookEndpointId,
) -> Result<Option<EndpointRow>, RepoError> {
    webhook_endpoints::table
        .find(id.to_string())
        .filter(webhook_endpoints::org_id.eq(org.to_string()))
        .select(EndpointRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading a webhook endpoint"))
}

/// Gives up the due deliveries of disabled endpoints.
fn fail_disabled(conn: &mut DbConnection, now: i64) -> Result<(), RepoError> {
    let disabled = webhook_endpoints::table
        .filter(webhook_endpoints::enabled.eq(false))
        .select(webhook_endpoints::id);
    diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
            .filter(webhook_deliveries::next_attempt_at.le(now))
            .filter(webhook_deliveries::endpoint_id.eq_any(disabled)),
    )
    .set((
        webhook_deliveries::status.eq(DeliveryStatus::Failed.as_str()),
        webhook_deliveries::next_attempt_at.eq(None::<i64>),
        webhook_deliveries::lease_until.eq(None::<i64>),
        webhook_deliveries::last_error.eq(Some(ENDPOINT_DISABLED)),
    ))
    .execute(conn)
    .map_err(backend("giving up the deliveries of disabled endpoints"))?;
    Ok(())
}

/// Most finished deliveries one pruning transaction deletes.
const PRUNE_BATCH: u32 = 1_000;

#[async_trait]
impl WebhookRepository for DieselWebhookRepository {
    async fn create_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        secret: &WebhookSecret,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let endpoint = endpoint.clone();
        let secret = secret.as_str().to_owned();
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                // Counted under the organization's cap lock: endpoints created at once cannot pass 20.
                crate::repos::caps::lock_cap(conn, "webhook_endpoints", &endpoint.org_id.to_string())?;
                let count: i64 = webhook_endpoints::table
                    .filter(webhook_endpoints::org_id.eq(endpoint.org_id.to_string()))
                    .count()
                    .get_result(conn)
                    .map_err(backend("counting webhook endpoints"))?;
                if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_ENDPOINTS_PER_ORG {
                    return Err(RepoError::Conflict("webhook endpoint limit".into()));
                }
                diesel::insert_into(webhook_endpoints::table)
                    .values((
                        webhook_endpoints::id.eq(endpoint.id.to_string()),
                        webhook_endpoints::org_id.eq(endpoint.org_id.to_string()),
                        webhook_endpoints::url.eq(&endpoint.url),
                        webhook_endpoints::description.eq(&endpoint.description),
                        webhook_endpoints::events.eq(endpoint.events.to_stored()),
                        webhook_endpoints::enabled.eq(endpoint.enabled),
                        webhook_endpoints::disabled_reason
                            .eq(endpoint.disabled_reason.map(DisabledReason::as_str)),
                        webhook_endpoints::secret.eq(&secret),
                        webhook_endpoints::created_at.eq(to_millis(endpoint.created_at)),
                        webhook_endpoints::updated_at.eq(to_millis(endpoint.updated_at)),
                    ))
                    .execute(conn)
                    .map_err(db_error("storing a webhook endpoint", "webhook_endpoint_id"))?;
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn list_endpoints(&self, org: OrgId) -> Result<Vec<WebhookEndpoint>, RepoError> {
        let rows: Vec<EndpointRow> = self
            .db
            .read(move |conn| {
                webhook_endpoints::table
                    .filter(webhook_endpoints::org_id.eq(org.to_string()))
                    .order((webhook_endpoints::created_at, webhook_endpoints::id))
                    .select(EndpointRow::as_select())
                    .load(conn)
                    .map_err(backend("listing webhook endpoints"))
            })
            .await?;
        rows.into_iter().map(EndpointRow::into_domain).collect()
    }

    async fn find_endpoint(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, RepoError> {
        self.db
            .read(move |conn| {
                endpoint_of(conn, org, id)?
                    .map(EndpointRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn update_endpoint(&self, endpoint: &WebhookEndpoint, audit: &AuditEntry) -> Result<(), RepoError> {
        let endpoint = endpoint.clone();
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let target = webhook_endpoints::table
                    .find(endpoint.id.to_string())
                    .filter(webhook_endpoints::org_id.eq(endpoint.org_id.to_string()));
                let changed = diesel::update(target.clone())
                    .set((
                        webhook_endpoints::url.eq(&endpoint.url),
                        webhook_endpoints::description.eq(&endpoint.description),
                        webhook_endpoints::events.eq(endpoint.events.to_stored()),
                        webhook_endpoints::enabled.eq(endpoint.enabled),
                        webhook_endpoints::disabled_reason
                            .eq(endpoint.disabled_reason.map(DisabledReason::as_str)),
                        webhook_endpoints::updated_at.eq(to_millis(endpoint.updated_at)),
                    ))
                    .execute(conn)
                    .map_err(backend("changing a webhook endpoint"))?;
                expect_one(changed)?;
                if endpoint.enabled {
                    diesel::update(target)
                        .set(webhook_endpoints::failing_since.eq(None::<i64>))
                        .execute(conn)
                        .map_err(backend("changing a webhook endpoint"))?;
                }
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn delete_endpoint(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                if endpoint_of(conn, org, id)?.is_none() {
                    return Err(RepoError::NotFound);
                }
                diesel::delete(
                    webhook_deliveries::table.filter(webhook_deliveries::endpoint_id.eq(id.to_string())),
                )
                .execute(conn)
                .map_err(backend("deleting a webhook endpoint's deliveries"))?;
                diesel::delete(webhook_endpoints::table.find(id.to_string()))
                    .execute(conn)
                    .map_err(backend("deleting a webhook endpoint"))?;
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn rotate_secret(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        secret: &WebhookSecret,
        previous_until: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let secret = secret.as_str().to_owned();
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let row = endpoint_of(conn, org, id)?.ok_or(RepoError::NotFound)?;
                diesel::update(webhook_endpoints::table.find(id.to_string()))
                    .set((
                        webhook_endpoints::previous_secret.eq(Some(&row.secret)),
                        webhook_endpoints::previous_secret_until.eq(Some(to_millis(previous_until))),
                        webhook_endpoints::secret.eq(&secret),
                        webhook_endpoints::updated_at.eq(to_millis(audit.at)),
                    ))
                    .execute(conn)
                    .map_err(backend("rotating a webhook secret"))?;
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn enqueue_for(
        &self,
        id: WebhookEndpointId,
        event: &WebhookEvent,
        delivery_id: &str,
    ) -> Result<(), RepoError> {
        let event = event.clone();
        let delivery_id = delivery_id.to_owned();
        self.db
            .write(move |conn| {
                if endpoint_of(conn, event.org_id, id)?.is_none() {
                    return Err(RepoError::NotFound);
                }
                rows::insert_delivery(conn, &id.to_string(), &event, &delivery_id, event.at)
            })
            .await
    }

    async fn list_deliveries(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        cursor: Option<(DateTime<Utc>, String)>,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>, RepoError> {
        let rows: Vec<DeliveryRow> = self
            .db
            .read(move |conn| {
                let mut query = webhook_deliveries::table
                    .filter(webhook_deliveries::endpoint_id.eq(id.to_string()))
                    .filter(webhook_deliveries::org_id.eq(org.to_string()))
                    .into_boxed();
                if let Some((at, last)) = cursor {
                    let at = to_millis(at);
                    query = query.filter(
                        webhook_deliveries::created_at
                            .lt(at)
                            .or(webhook_deliveries::created_at
                                .eq(at)
                                .and(webhook_deliveries::id.lt(last))),
                    );
                }
                query
                    .order((
                        webhook_deliveries::created_at.desc(),
                        webhook_deliveries::id.desc(),
                    ))
                    .limit(i64::from(limit))
                    .select(DeliveryRow::as_select())
                    .load(conn)
                    .map_err(backend("listing webhook deliveries"))
            })
            .await?;
        rows.into_iter().map(DeliveryRow::into_domain).collect()
    }

    async fn retry_delivery(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        delivery_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let delivery_id = delivery_id.to_owned();
        let now = to_millis(now);
        self.db
            .write(move |conn| {
                let row: DeliveryRow = webhook_deliveries::table
                    .find(&delivery_id)
                    .filter(webhook_deliveries::endpoint_id.eq(id.to_string()))
                    .filter(webhook_deliveries::org_id.eq(org.to_string()))
                    .select(DeliveryRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a webhook delivery"))?
                    .ok_or(RepoError::NotFound)?;
                if row.lease_until.is_some_and(|until| until > now) {
                    return Err(RepoError::Conflict("delivery in progress".into()));
                }
                diesel::update(webhook_deliveries::table.find(&delivery_id))
                    .set((
                        webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()),
                        webhook_deliveries::next_attempt_at.eq(Some(now)),
                        webhook_deliveries::lease_until.eq(None::<i64>),
                    ))
                    .execute(conn)
                    .map_err(backend("retrying a webhook delivery"))
                    .and_then(expect_one)
            })
            .await
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
        per_endpoint: u32,
        lease_until: DateTime<Utc>,
    ) -> Result<Vec<ClaimedDelivery>, RepoError> {
        let (now, until) = (to_millis(now), to_millis(lease_until));
        self.db
            .write(move |conn| {
                fail_disabled(conn, now)?;
                let candidates: Vec<DeliveryRow> = webhook_deliveries::table
                    .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
                    .filter(webhook_deliveries::next_attempt_at.le(now))
                    .filter(
                        webhook_deliveries::lease_until
                            .is_null()
                            .or(webhook_deliveries::lease_until.le(now)),
                    )
                    .order((
                        webhook_deliveries::next_attempt_at,
                        webhook_deliveries::created_at,
                    ))
                    .limit(i64::from(limit) * 4)
                    .select(DeliveryRow::as_select())
                    .load(conn)
                    .map_err(backend("reading the due webhook deliveries"))?;
                let mut leased: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
                let mut endpoints: std::collections::HashMap<String, Option<EndpointRow>> =
                    std::collections::HashMap::new();
                let mut claimed = Vec::new();
                for row in candidates {
                    if claimed.len() >= limit as usize {
                        break;
                    }
                    if !leased.contains_key(&row.endpoint_id) {
                        let alive: i64 = webhook_deliveries::table
                            .filter(webhook_deliveries::endpoint_id.eq(&row.endpoint_id))
                            .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
                            .filter(webhook_deliveries::lease_until.gt(now))
                            .count()
                            .get_result(conn)
                            .map_err(backend("counting an endpoint's deliveries in progress"))?;
                        leased.insert(row.endpoint_id.clone(), alive);
                    }
                    let alive = leased.get(&row.endpoint_id).copied().unwrap_or_default();
                    if alive >= i64::from(per_endpoint) {
                        continue;
                    }
                    let won = diesel::update(
                        webhook_deliveries::table
                            .find(&row.id)
                            .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
                            .filter(webhook_deliveries::next_attempt_at.le(now))
                            .filter(
                                webhook_deliveries::lease_until
                                    .is_null()
                                    .or(webhook_deliveries::lease_until.le(now)),
                            ),
                    )
                    .set(webhook_deliveries::lease_until.eq(Some(until)))
                    .execute(conn)
                    .map_err(backend("leasing a webhook delivery"))?;
                    if won != 1 {
                        continue;
                    }
                    leased.insert(row.endpoint_id.clone(), alive + 1);
                    if !endpoints.contains_key(&row.endpoint_id) {
                        let endpoint = webhook_endpoints::table
                            .find(&row.endpoint_id)
                            .select(EndpointRow::as_select())
                            .first(conn)
                            .optional()
                            .map_err(backend("reading a webhook endpoint"))?;
                        endpoints.insert(row.endpoint_id.clone(), endpoint);
                    }
                    let Some(Some(endpoint)) = endpoints.get(&row.endpoint_id) else {
                        continue;
                    };
                    claimed.push(ClaimedDelivery {
                        url: endpoint.url.clone(),
                        secrets: endpoint.secrets()?,
                        failing_since: from_millis_opt(endpoint.failing_since)?,
                        delivery: row.into_domain()?,
                    });
                }
                Ok(claimed)
            })
            .await
    }

    async fn record_attempt(&self, record: &AttemptRecord) -> Result<(), RepoError> {
        let record = record.clone();
        self.db
            .write(move |conn| {
                let at = to_millis(record.at);
                let status = if record.delivered {
                    DeliveryStatus::Delivered
                } else if record.next_attempt_at.is_some() {
                    DeliveryStatus::Pending
                } else {
                    DeliveryStatus::Failed
                };
                let changed = diesel::update(webhook_deliveries::table.find(&record.delivery_id))
                    .set((
                        webhook_deliveries::status.eq(status.as_str()),
                        webhook_deliveries::attempts.eq(int(record.attempts)),
                        webhook_deliveries::next_attempt_at.eq(record.next_attempt_at.map(to_millis)),
                        webhook_deliveries::lease_until.eq(None::<i64>),
                        webhook_deliveries::last_attempt_at.eq(Some(at)),
                        webhook_deliveries::last_status.eq(record.status.map(i32::from)),
                        webhook_deliveries::last_duration_ms.eq(record.duration_ms.map(int)),
                        webhook_deliveries::last_response.eq(record.response.as_deref()),
                        webhook_deliveries::last_error.eq(record.error.as_deref()),
                    ))
                    .execute(conn)
                    .map_err(backend("recording a webhook attempt"))?;
                expect_one(changed)?;
                let endpoint = webhook_endpoints::table.find(record.endpoint_id.to_string());
                diesel::update(endpoint.clone())
                    .set((
                        webhook_endpoints::last_attempt_at.eq(Some(at)),
                        webhook_endpoints::last_attempt_ok.eq(Some(record.delivered)),
                        webhook_endpoints::failing_since.eq(record.failing_since.map(to_millis)),
                    ))
                    .execute(conn)
                    .map_err(backend("recording a webhook endpoint's health"))?;
                if let Some((reason, audit, emails)) = &record.disable {
                    let disabled = diesel::update(endpoint.filter(webhook_endpoints::enabled.eq(true)))
                        .set((
                            webhook_endpoints::enabled.eq(false),
                            webhook_endpoints::disabled_reason.eq(Some(reason.as_str())),
                            webhook_endpoints::updated_at.eq(at),
                        ))
                        .execute(conn)
                        .map_err(backend("disabling a webhook endpoint"))?;
                    // Another instance may have disabled it a moment ago: one entry and one e-mail each.
                    if disabled == 1 {
                        append(conn, std::slice::from_ref(audit))?;
                        outbox_rows::enqueue(conn, emails, record.at)?;
                    }
                }
                Ok(())
            })
            .await
    }

    async fn admin_emails(&self, org: OrgId) -> Result<Vec<EmailAddress>, RepoError> {
        let rows: Vec<String> = self
            .db
            .read(move |conn| {
                org_members::table
                    .inner_join(accounts::table)
                    .filter(org_members::org_id.eq(org.to_string()))
                    .filter(org_members::role.eq(domain::orgs::OrgRole::Admin.as_str()))
                    .select(accounts::email)
                    .load(conn)
                    .map_err(backend("reading an organization's admins"))
            })
            .await?;
        rows.iter()
            .map(|email| parse_stored("accounts.email", email, EmailAddress::parse))
            .collect()
    }

    async fn backlog(&self) -> Result<DeliveryBacklog, RepoError> {
        let (pending, oldest): (i64, Option<i64>) = self
            .db
            .read(|conn| {
                webhook_deliveries::table
                    .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
                    .select((
                        diesel::dsl::count_star(),
                        diesel::dsl::min(webhook_deliveries::created_at),
                    ))
                    .first(conn)
                    .map_err(backend("measuring the webhook queue"))
            })
            .await?;
        Ok(DeliveryBacklog {
            pending: u64::try_from(pending).unwrap_or_default(),
            oldest_created_at: oldest.map(from_millis).transpose()?,
        })
    }

    async fn prune_finished_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        use diesel::sql_types::{BigInt, Bool};
        let cutoff = to_millis(cutoff);
        let mut removed = 0;
        // In batches, each its own transaction: SQLite's writer is not held for the whole of a large backlog.
        loop {
            let batch = self
                .db
                .write(move |conn| {
                    let finished = webhook_deliveries::table
                        .filter(webhook_deliveries::status.ne(DeliveryStatus::Pending.as_str()))
                        .filter(
                            diesel::dsl::sql::<Bool>("COALESCE(last_attempt_at, created_at) < ")
                                .bind::<BigInt, _>(cutoff),
                        )
                        .select(webhook_deliveries::id)
                        .limit(i64::from(PRUNE_BATCH))
                        .load::<String>(conn)
                        .map_err(backend("finding finished webhook deliveries"))?;
                    diesel::delete(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(&finished)))
                        .execute(conn)
                        .map_err(backend("pruning webhook deliveries"))
                        .map(|n| n as u64)
                })
                .await?;
            removed += batch;
            if batch < u64::from(PRUNE_BATCH) {
                return Ok(removed);
            }
        }
    }
}
