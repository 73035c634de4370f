-- Webhook endpoints of an organization (issue 38). `events` is `*` (every event) or the event codes separated
-- by commas. `secret` signs deliveries (`whsec_…`); after a rotation `previous_secret` signs beside it until
-- `previous_secret_until`. `failing_since` is the first failed attempt since the last success.
CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY NOT NULL,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    description TEXT NOT NULL,
    events TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_until BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    failing_since BIGINT,
    last_attempt_at BIGINT,
    last_attempt_ok BOOLEAN
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints(org_id, created_at);

-- One event on its way to one endpoint, queued in the transaction of the change that caused it. `id` is the
-- `webhook-id` of every attempt. `data` is the payload's `data` (JSON; its link a path of the portal).
-- `status`: PENDING, DELIVERED or FAILED. A claimed delivery has `lease_until` in the future.
CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY NOT NULL,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    org_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    event_at BIGINT NOT NULL,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at BIGINT,
    lease_until BIGINT,
    last_attempt_at BIGINT,
    last_status INTEGER,
    last_duration_ms INTEGER,
    last_response TEXT,
    last_error TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, created_at, id);
