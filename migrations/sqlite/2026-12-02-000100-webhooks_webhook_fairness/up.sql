-- Issue 47: one organization's webhooks cannot hold up another's.
-- "Send test" and "Retry" pressed by an organization's admins, for the limits per endpoint and per
-- organization within a window; rows older than the window are removed as the organization sends more.
CREATE TABLE webhook_manual_sends (
    id TEXT PRIMARY KEY NOT NULL,
    org_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX webhook_manual_sends_org ON webhook_manual_sends(org_id, at);
CREATE INDEX webhook_manual_sends_endpoint ON webhook_manual_sends(endpoint_id, at);
-- The claim counts the leases alive per organization and per endpoint, and the queue bound counts an
-- endpoint's pending deliveries.
CREATE INDEX webhook_deliveries_pending_org ON webhook_deliveries(org_id, lease_until) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_pending_endpoint ON webhook_deliveries(endpoint_id, lease_until) WHERE status = 'PENDING';
