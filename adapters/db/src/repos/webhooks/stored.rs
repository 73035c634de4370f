//! The stored forms of a webhook endpoint and a delivery, and the reads the other parts share.

use diesel::prelude::*;
use domain::common::{OrgId, RepoError};
use domain::webhooks::{
    DeliveryStatus, DisabledReason, EventFilter, SealedSecret, SealedSecrets, WebhookDelivery,
    WebhookEndpoint, WebhookEndpointId, WebhookEvent, WebhookEventType,
};
use uuid::Uuid;

use crate::DbConnection;
use crate::convert::{backend, from_json, from_millis, from_millis_opt, parse_stored};
use crate::schema::{webhook_deliveries, webhook_endpoints};

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = webhook_endpoints)]
pub(super) struct EndpointRow {
    pub(super) id: String,
    pub(super) org_id: String,
    pub(super) url: String,
    pub(super) description: String,
    pub(super) events: String,
    pub(super) enabled: bool,
    pub(super) disabled_reason: Option<String>,
    pub(super) secret: String,
    pub(super) previous_secret: Option<String>,
    pub(super) previous_secret_until: Option<i64>,
    pub(super) created_at: i64,
    pub(super) updated_at: i64,
    pub(super) failing_since: Option<i64>,
    pub(super) last_attempt_at: Option<i64>,
    pub(super) last_attempt_ok: Option<bool>,
}

impl EndpointRow {
    pub(super) fn into_domain(self) -> Result<WebhookEndpoint, RepoError> {
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

    pub(super) fn secrets(&self) -> Result<SealedSecrets, RepoError> {
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
pub(super) struct DeliveryRow {
    pub(super) id: String,
    pub(super) endpoint_id: String,
    pub(super) org_id: String,
    pub(super) event_type: String,
    pub(super) event_at: i64,
    pub(super) data: String,
    pub(super) created_at: i64,
    pub(super) status: String,
    pub(super) attempts: i32,
    pub(super) next_attempt_at: Option<i64>,
    pub(super) lease_until: Option<i64>,
    pub(super) last_attempt_at: Option<i64>,
    pub(super) last_status: Option<i32>,
    pub(super) last_duration_ms: Option<i32>,
    pub(super) last_response: Option<String>,
    pub(super) last_error: Option<String>,
}

impl DeliveryRow {
    pub(super) fn into_domain(self) -> Result<WebhookDelivery, RepoError> {
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

pub(super) fn expect_one(changed: usize) -> Result<(), RepoError> {
    if changed == 0 {
        Err(RepoError::NotFound)
    } else {
        Ok(())
    }
}

pub(super) fn int(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

pub(super) fn endpoint_of(
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
