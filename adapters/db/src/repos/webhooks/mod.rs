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

mod claims;
pub mod rows;
mod secrets;
mod sends;
mod stored;
mod upkeep;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, OrgId, RepoError};
use domain::webhooks::ports::{AttemptRecord, ClaimedDelivery, DeliveryBacklog};
use domain::webhooks::{
    Admission, DeliveryCursor, DisabledReason, MAX_ENDPOINTS_PER_ORG, MessageId, SealedSecret, SecretSlot,
    SendLimits, WebhookDelivery, WebhookEndpoint, WebhookEndpointId, WebhookEvent, WebhookRepository,
};

use self::stored::{DeliveryRow, EndpointRow, endpoint_of, expect_one};
use super::audit::record_and_queue_events;
use crate::Db;
use crate::convert::{backend, db_error, parse_stored, to_millis};
use crate::schema::{accounts, org_members, webhook_deliveries, webhook_endpoints};

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
                            .eq(endpoint.disabled_reason.map(DisabledReason::code)),
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
                            .eq(endpoint.disabled_reason.map(DisabledReason::code)),
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
            .write(move |conn| secrets::rotate(conn, org, id, &secret, previous_until, &audit))
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
            .write(move |conn| sends::queue_by_hand(conn, id, &event, &delivery_id, limits))
            .await
    }

    async fn list_deliveries(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        cursor: Option<DeliveryCursor>,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>, RepoError> {
        let rows: Vec<DeliveryRow> = self
            .db
            .read(move |conn| {
                let mut query = webhook_deliveries::table
                    .filter(webhook_deliveries::endpoint_id.eq(id.to_string()))
                    .filter(webhook_deliveries::org_id.eq(org.to_string()))
                    .into_boxed();
                if let Some(DeliveryCursor {
                    at_millis: at,
                    id: MessageId(last),
                }) = cursor
                {
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
        let delivery_id = delivery_id.to_owned();
        let now = to_millis(now);
        self.db
            .write(move |conn| sends::retry(conn, org, id, &delivery_id, now, limits))
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
        let (now, until) = (to_millis(now), to_millis(lease_until));
        self.db
            .write(move |conn| claims::claim(conn, now, limit, per_endpoint, per_org, until))
            .await
    }

    async fn record_attempt(&self, record: &AttemptRecord) -> Result<(), RepoError> {
        let record = record.clone();
        self.db
            .write(move |conn| claims::record_attempt(conn, &record))
            .await
    }

    async fn plain_secrets(
        &self,
        limit: u32,
    ) -> Result<Vec<(WebhookEndpointId, SecretSlot, SealedSecret)>, RepoError> {
        self.db.read(move |conn| secrets::plain(conn, limit)).await
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
            .write(move |conn| secrets::reseal(conn, id, slot, &plain, &sealed))
            .await
    }

    async fn admin_emails(&self, org: OrgId) -> Result<Vec<EmailAddress>, RepoError> {
        let rows: Vec<String> = self
            .db
            .read(move |conn| {
                org_members::table
                    .inner_join(accounts::table)
                    .filter(org_members::org_id.eq(org.to_string()))
                    .filter(org_members::role.eq(domain::orgs::OrgRole::Admin.code()))
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
        self.db.read(upkeep::backlog).await
    }

    async fn prune_finished_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        let cutoff = to_millis(cutoff);
        let mut removed = 0;
        // In batches, each its own transaction: SQLite's writer is not held for the whole of a large backlog.
        loop {
            let batch = self
                .db
                .write(move |conn| upkeep::prune_batch(conn, cutoff))
                .await?;
            removed += batch;
            if batch < u64::from(upkeep::PRUNE_BATCH) {
                return Ok(removed);
            }
        }
    }
}
