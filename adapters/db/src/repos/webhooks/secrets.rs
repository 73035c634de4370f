//! An endpoint's signing secrets as stored (sealed): a rotation, and the secrets still stored in the clear
//! found and sealed.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{OrgId, RepoError};
use domain::webhooks::{SealedSecret, SecretSlot, WebhookEndpointId};
use uuid::Uuid;

use super::stored::endpoint_of;
use crate::DbConnection;
use crate::convert::{backend, parse_stored, to_millis};
use crate::repos::audit::record_and_queue_events;
use crate::schema::webhook_endpoints;

/// Replaces the endpoint's secret; the former one is kept as the previous secret until `previous_until`.
pub(super) fn rotate(
    conn: &mut DbConnection,
    org: OrgId,
    id: WebhookEndpointId,
    secret: &str,
    previous_until: DateTime<Utc>,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    let row = endpoint_of(conn, org, id)?.ok_or(RepoError::NotFound)?;
    diesel::update(webhook_endpoints::table.find(id.to_string()))
        .set((
            webhook_endpoints::previous_secret.eq(Some(&row.secret)),
            webhook_endpoints::previous_secret_until.eq(Some(to_millis(previous_until))),
            webhook_endpoints::secret.eq(secret),
            webhook_endpoints::updated_at.eq(to_millis(audit.at)),
        ))
        .execute(conn)
        .map_err(backend("rotating a webhook secret"))?;
    record_and_queue_events(conn, std::slice::from_ref(audit))
}

/// Up to `limit` secrets stored in the clear (`whsec_…`), with their endpoint and slot.
pub(super) fn plain(
    conn: &mut DbConnection,
    limit: u32,
) -> Result<Vec<(WebhookEndpointId, SecretSlot, SealedSecret)>, RepoError> {
    let rows: Vec<(String, String, Option<String>)> = webhook_endpoints::table
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
        .map_err(backend("finding webhook secrets stored in the clear"))?;
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

/// Replaces the secret of `slot` with `sealed` when it is still `plain`; whether it was.
pub(super) fn reseal(
    conn: &mut DbConnection,
    id: WebhookEndpointId,
    slot: SecretSlot,
    plain: &str,
    sealed: &str,
) -> Result<bool, RepoError> {
    let row = webhook_endpoints::table.find(id.to_string());
    let changed = match slot {
        SecretSlot::Current => diesel::update(row.filter(webhook_endpoints::secret.eq(plain)))
            .set(webhook_endpoints::secret.eq(sealed))
            .execute(conn),
        SecretSlot::Previous => diesel::update(row.filter(webhook_endpoints::previous_secret.eq(plain)))
            .set(webhook_endpoints::previous_secret.eq(sealed))
            .execute(conn),
    }
    .map_err(backend("sealing a webhook secret"))?;
    Ok(changed == 1)
}
