-- The audit log (PRODUCT.md §9): one row per recorded change, appended in the change's own transaction and
-- never updated. `org_id` has no foreign key: an organization's entries outlive it until the retention
-- (`PORTAL_AUDIT_RETENTION_DAYS`) removes them. `platform` marks what the platform's log shows (platform
-- entries and review decisions). `changes` is a JSON array of {field, old, new}, never a secret.
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY NOT NULL,
    at BIGINT NOT NULL,
    org_id TEXT,
    platform BOOLEAN NOT NULL,
    actor_id TEXT NOT NULL,
    actor_email TEXT NOT NULL,
    action TEXT NOT NULL,
    target_kind TEXT,
    target_id TEXT,
    target_label TEXT,
    changes TEXT NOT NULL,
    client_ip TEXT,
    user_agent TEXT
);
-- The reads, newest first, by organization (all entries, or one person's, action's or app's) and the
-- platform's; the retention reads by time.
CREATE INDEX audit_log_org ON audit_log (org_id, at DESC, id DESC);
CREATE INDEX audit_log_org_actor ON audit_log (org_id, actor_id, at DESC, id DESC);
CREATE INDEX audit_log_org_action ON audit_log (org_id, action, at DESC, id DESC);
CREATE INDEX audit_log_org_target ON audit_log (org_id, target_id, at DESC, id DESC);
CREATE INDEX audit_log_platform ON audit_log (platform, at DESC, id DESC);
CREATE INDEX audit_log_at ON audit_log (at);
