//! Webhook endpoints and deliveries (`webhook_endpoints`, `webhook_deliveries`): [`rows::enqueue`], which
//! the repositories of the changes that cause events call inside their own transaction (through the audit
//! log's `record_and_queue_events`), and [`DieselWebhookRepository`], the port of the Webhooks page and the delivery worker.
//!
//! Claims lease a delivery as the e-mail outbox does (`outbox.rs`): a conditional `UPDATE` of a row read as
//! due, counted by its row count, so that two instances never attempt one delivery at once. The due rows are
//! read taking turns across organizations (`row_number() OVER (PARTITION BY org_id …)`: every
//! organization's oldest, then every one's second, …), leaving out the organizations and endpoints whose
//! leases alive are at their bound; the bounds per endpoint and per organization count the leases alive
//! when a claim is made (on SQLite one writer at a time; on PostgreSQL two instances claiming in the same
//! instant may exceed them by one each).
//!
//! "Send test" and "Retry" are bounded inside the write that queues: a conditional insert into
//! `webhook_manual_sends` (the sends of the window, per endpoint and per organization) and a conditional
//! insert of the delivery (the endpoint's pending ones). On PostgreSQL the organization's sends are
//! serialised by a transaction-scoped advisory lock, so that a burst at READ COMMITTED cannot pass the counts
//! together; SQLite lets one writer in at a time.
//!
//! Signing secrets are stored sealed (`domain::webhooks::SealedSecret`); this module stores and reads the
//! sealed text and never sees a secret.

pub mod rows;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, OrgId, RepoError};
use domain::webhooks::ports::{AttemptRecord, ClaimedDelivery, DeliveryBacklog};
use domain::webhooks::{
    Admission, DeliveryStatus, DisabledReason, EventFilter, LimitScope, MAX_ENDPOINTS_PER_ORG, SealedSecret,
    SealedSecrets, SecretSlot, SendLimits, WebhookDelivery, WebhookEndpoint, WebhookEndpointId, WebhookEvent,
    WebhookEventType, WebhookRepository,
};
use uuid::Uuid;

use self::rows::{WhenFull, on_either};
use super::audit::record_and_queue_events;
use crate::convert::{backend, db_error, from_json, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::schema::{accounts, org_members, webhook_deliveries, webhook_endpoints, webhook_manual_sends};
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

    fn secrets(&self) -> Result<SealedSecrets, RepoError> {
        let current = SealedSecret::stored(self.secret.clone());
        let previous = match (&self.previous_secret, self.previous_secret_until) {
            (Some(text), Some(until)) => Some((SealedSecret::stored(text.clone()), from_millis(until)?)),
            _ => None,
        };
        Ok(SealedSecrets { current, previous })
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

/// On PostgreSQL, waits for (and holds until the transaction ends) the lock of `org`'s sends by hand, so that
/// concurrent sends are counted one after the other; SQLite has one writer at a time already.
fn lock_sends_of(conn: &mut DbConnection, org: OrgId) -> Result<(), RepoError> {
    if let DbConnection::Postgres(c) = conn {
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1))")
            .bind::<diesel::sql_types::Text, _>(format!("webhook-sends:{org}"))
            .execute(c)
            .map_err(backend("locking an organization's webhook sends"))?;
    }
    Ok(())
}

/// Records one send by hand (`send_id`) of endpoint `endpoint` at `now` when the window still has room for
/// it, in one conditional insert; otherwise answers which bound refused it and when the next one may go.
fn admit_send(
    conn: &mut DbConnection,
    org: OrgId,
    endpoint: WebhookEndpointId,
    send_id: &str,
    now: i64,
    limits: SendLimits,
) -> Result<Option<Admission>, RepoError> {
    use diesel::sql_types::{BigInt, Text};
    const ADMIT: &str = "INSERT INTO webhook_manual_sends (id, org_id, endpoint_id, at) SELECT $1, $2, $3, $4 \
        WHERE (SELECT count(*) FROM webhook_manual_sends WHERE endpoint_id = $3 AND at > $5) < $6 \
        AND (SELECT count(*) FROM webhook_manual_sends WHERE org_id = $2 AND at > $5) < $7";
    let window = limits.window.num_milliseconds();
    let since = now - window;
    let (org_text, endpoint_text) = (org.to_string(), endpoint.to_string());
    diesel::delete(
        webhook_manual_sends::table
            .filter(webhook_manual_sends::org_id.eq(&org_text))
            .filter(webhook_manual_sends::at.le(since)),
    )
    .execute(conn)
    .map_err(backend("forgetting old webhook sends"))?;
    let admitted = on_either!(conn, ADMIT, |query, c| query
        .bind::<Text, _>(send_id)
        .bind::<Text, _>(&org_text)
        .bind::<Text, _>(&endpoint_text)
        .bind::<BigInt, _>(now)
        .bind::<BigInt, _>(since)
        .bind::<BigInt, _>(i64::from(limits.per_endpoint))
        .bind::<BigInt, _>(i64::from(limits.per_org))
        .execute(c))
    .map_err(backend("recording a webhook send"))?;
    if admitted == 1 {
        return Ok(None);
    }
    let in_window = |conn: &mut DbConnection, of_endpoint: bool| {
        let mut query = webhook_manual_sends::table
            .filter(webhook_manual_sends::at.gt(since))
            .into_boxed();
        query = if of_endpoint {
            query.filter(webhook_manual_sends::endpoint_id.eq(&endpoint_text))
        } else {
            query.filter(webhook_manual_sends::org_id.eq(&org_text))
        };
        query
            .select((
                diesel::dsl::count_star(),
                diesel::dsl::min(webhook_manual_sends::at),
            ))
            .first::<(i64, Option<i64>)>(conn)
            .map_err(backend("reading the webhook sends of the window"))
    };
    let (count, oldest) = in_window(conn, true)?;
    let (scope, oldest) = if count >= i64::from(limits.per_endpoint) {
        (LimitScope::Endpoint, oldest)
    } else {
        (LimitScope::Organization, in_window(conn, false)?.1)
    };
    Ok(Some(Admission::Limited {
        scope,
        retry_at: from_millis(oldest.unwrap_or(now) + window)?,
    }))
}

/// Takes back the send by hand `send_id` (its delivery was not queued after all).
fn forget_send(conn: &mut DbConnection, send_id: &str) -> Result<(), RepoError> {
    diesel::delete(webhook_manual_sends::table.find(send_id))
        .execute(conn)
        .map_err(backend("forgetting a webhook send"))?;
    Ok(())
}

/// A delivery's id, as the claim query answers it.
#[derive(Debug, QueryableByName)]
struct DueId {
    #[diesel(sql_type = diesel::sql_types::Text)]
    id: String,
}

/// The due deliveries, taking turns across organizations (each one's oldest, then each one's second, …),
/// without those of organizations and endpoints whose leases alive are at their bound: `$1` now, `$2` the
/// bound per organization, `$3` per endpoint, `$4` how many.
const DUE_IN_TURNS: &str = "SELECT id FROM (\
    SELECT id, next_attempt_at, created_at, \
        row_number() OVER (PARTITION BY org_id ORDER BY next_attempt_at, created_at, id) AS turn \
    FROM webhook_deliveries \
    WHERE status = 'PENDING' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) \
    AND org_id NOT IN (SELECT org_id FROM webhook_deliveries WHERE status = 'PENDING' AND lease_until > $1 \
        GROUP BY org_id HAVING count(*) >= $2) \
    AND endpoint_id NOT IN (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'PENDING' \
        AND lease_until > $1 GROUP BY endpoint_id HAVING count(*) >= $3)\
    ) due ORDER BY turn, next_attempt_at, created_at, id LIMIT $4";

/// Leases alive of the deliveries of one organization or one endpoint.
fn leases_alive(conn: &mut DbConnection, of_org: bool, key: &str, now: i64) -> Result<i64, RepoError> {
    let mut query = webhook_deliveries::table
        .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
        .filter(webhook_deliveries::lease_until.gt(now))
        .into_boxed();
    query = if of_org {
        query.filter(webhook_deliveries::org_id.eq(key.to_owned()))
    } else {
        query.filter(webhook_deliveries::endpoint_id.eq(key.to_owned()))
    };
    query
        .count()
        .get_result(conn)
        .map_err(backend("counting the webhook deliveries in progress"))
}

/// Most finished deliveries one pruning transaction deletes.
const PRUNE_BATCH: u32 = 1_000;

#[async_trait]
impl WebhookRepository for DieselWebhookRepository {
    async fn create_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        secret: &SealedSecret,
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
                record_and_queue_events(conn, std::slice::from_ref(&audit))
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
                record_and_queue_events(conn, std::slice::from_ref(&audit))
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
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn rotate_secret(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        secret: &SealedSecret,
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
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn enqueue_for(
        &self,
        id: WebhookEndpointId,
        event: &WebhookEvent,
        delivery_id: &str,
        limits: SendLimits,
    ) -> Result<Admission, RepoError> {
        let event = event.clone();
        let delivery_id = delivery_id.to_owned();
        self.db
            .write(move |conn| {
                lock_sends_of(conn, event.org_id)?;
                if endpoint_of(conn, event.org_id, id)?.is_none() {
                    return Err(RepoError::NotFound);
                }
                let send = Uuid::new_v4().to_string();
                if let Some(refused) = admit_send(conn, event.org_id, id, &send, to_millis(event.at), limits)?
                {
                    return Ok(refused);
                }
                let queued = rows::insert_delivery(
                    conn,
                    &id.to_string(),
                    &event,
                    &delivery_id,
                    event.at,
                    limits.max_pending,
                    WhenFull::Refuse,
                )?;
                if queued {
                    Ok(Admission::Queued)
                } else {
                    forget_send(conn, &send)?;
                    Ok(Admission::Backlog)
                }
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
        limits: SendLimits,
    ) -> Result<Admission, RepoError> {
        use diesel::sql_types::{BigInt, Text};
        // Made due again unless that adds a pending delivery to an endpoint whose queue is full.
        const RETRY: &str = "UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = $1, \
            lease_until = NULL WHERE id = $2 AND (status = 'PENDING' OR (SELECT count(*) FROM \
            webhook_deliveries WHERE endpoint_id = $3 AND status = 'PENDING') < $4)";
        let delivery_id = delivery_id.to_owned();
        let now = to_millis(now);
        self.db
            .write(move |conn| {
                lock_sends_of(conn, org)?;
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
                let send = Uuid::new_v4().to_string();
                if let Some(refused) = admit_send(conn, org, id, &send, now, limits)? {
                    return Ok(refused);
                }
                let changed = on_either!(conn, RETRY, |query, c| query
                    .bind::<BigInt, _>(now)
                    .bind::<Text, _>(&delivery_id)
                    .bind::<Text, _>(&row.endpoint_id)
                    .bind::<BigInt, _>(i64::from(limits.max_pending))
                    .execute(c))
                .map_err(backend("retrying a webhook delivery"))?;
                if changed == 1 {
                    Ok(Admission::Queued)
                } else {
                    forget_send(conn, &send)?;
                    Ok(Admission::Backlog)
                }
            })
            .await
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
        per_endpoint: u32,
        per_org: u32,
        lease_until: DateTime<Utc>,
    ) -> Result<Vec<ClaimedDelivery>, RepoError> {
        use diesel::sql_types::BigInt;
        let (now, until) = (to_millis(now), to_millis(lease_until));
        self.db
            .write(move |conn| {
                fail_disabled(conn, now)?;
                let due: Vec<DueId> = on_either!(conn, DUE_IN_TURNS, |query, c| query
                    .bind::<BigInt, _>(now)
                    .bind::<BigInt, _>(i64::from(per_org))
                    .bind::<BigInt, _>(i64::from(per_endpoint))
                    .bind::<BigInt, _>(i64::from(limit) * 4)
                    .load(c))
                .map_err(backend("reading the due webhook deliveries"))?;
                let order: Vec<String> = due.into_iter().map(|d| d.id).collect();
                let mut rows: std::collections::HashMap<String, DeliveryRow> = webhook_deliveries::table
                    .filter(webhook_deliveries::id.eq_any(&order))
                    .select(DeliveryRow::as_select())
                    .load(conn)
                    .map_err(backend("reading the due webhook deliveries"))?
                    .into_iter()
                    .map(|row| (row.id.clone(), row))
                    .collect();
                let candidates = order.iter().filter_map(|id| rows.remove(id));
                let mut of_org: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
                let mut leased: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
                let mut endpoints: std::collections::HashMap<String, Option<EndpointRow>> =
                    std::collections::HashMap::new();
                let mut claimed = Vec::new();
                for row in candidates {
                    if claimed.len() >= limit as usize {
                        break;
                    }
                    if !leased.contains_key(&row.endpoint_id) {
                        let alive = leases_alive(conn, false, &row.endpoint_id, now)?;
                        leased.insert(row.endpoint_id.clone(), alive);
                    }
                    let alive = leased.get(&row.endpoint_id).copied().unwrap_or_default();
                    if alive >= i64::from(per_endpoint) {
                        continue;
                    }
                    if !of_org.contains_key(&row.org_id) {
                        of_org.insert(row.org_id.clone(), leases_alive(conn, true, &row.org_id, now)?);
                    }
                    let org_alive = of_org.get(&row.org_id).copied().unwrap_or_default();
                    if org_alive >= i64::from(per_org) {
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
                    of_org.insert(row.org_id.clone(), org_alive + 1);
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
                        record_and_queue_events(conn, std::slice::from_ref(audit))?;
                        outbox_rows::enqueue(conn, emails, record.at)?;
                    }
                }
                Ok(())
            })
            .await
    }

    async fn plain_secrets(
        &self,
        limit: u32,
    ) -> Result<Vec<(WebhookEndpointId, SecretSlot, SealedSecret)>, RepoError> {
        let rows: Vec<(String, String, Option<String>)> = self
            .db
            .read(move |conn| {
                webhook_endpoints::table
                    .filter(
                        webhook_endpoints::secret
                            .like("whsec\\_%")
                            .escape('\\')
                            .or(webhook_endpoints::previous_secret.like("whsec\\_%").escape('\\')),
                    )
                    .order(webhook_endpoints::id)
                    .limit(i64::from(limit))
                    .select((
                        webhook_endpoints::id,
                        webhook_endpoints::secret,
                        webhook_endpoints::previous_secret,
                    ))
                    .load(conn)
                    .map_err(backend("finding webhook secrets stored in the clear"))
            })
            .await?;
        let mut plain = Vec::new();
        for (id, current, previous) in rows {
            let id = WebhookEndpointId(parse_stored("webhook_endpoints.id", &id, Uuid::parse_str)?);
            for (slot, text) in [
                (SecretSlot::Current, Some(current)),
                (SecretSlot::Previous, previous),
            ] {
                if let Some(stored) = text.map(SealedSecret::stored).filter(SealedSecret::is_plain) {
                    plain.push((id, slot, stored));
                }
            }
        }
        Ok(plain)
    }

    async fn reseal_secret(
        &self,
        id: WebhookEndpointId,
        slot: SecretSlot,
        plain: &SealedSecret,
        sealed: &SealedSecret,
    ) -> Result<bool, RepoError> {
        let (plain, sealed) = (plain.as_str().to_owned(), sealed.as_str().to_owned());
        self.db
            .write(move |conn| {
                let row = webhook_endpoints::table.find(id.to_string());
                let changed = match slot {
                    SecretSlot::Current => diesel::update(row.filter(webhook_endpoints::secret.eq(&plain)))
                        .set(webhook_endpoints::secret.eq(&sealed))
                        .execute(conn),
                    SecretSlot::Previous => {
                        diesel::update(row.filter(webhook_endpoints::previous_secret.eq(&plain)))
                            .set(webhook_endpoints::previous_secret.eq(&sealed))
                            .execute(conn)
                    }
                }
                .map_err(backend("sealing a webhook secret"))?;
                Ok(changed == 1)
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
