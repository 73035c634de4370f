-- An audit entry made by the server's operator (an `app-server` command, the `PORTAL_ADMIN_EMAILS` setting)
-- names no account: its `actor_id` is NULL and `actor_email` says "operator (…)". SQLite cannot drop a NOT
-- NULL constraint, so the table is rebuilt with its indexes.
CREATE TABLE audit_log_new (
    id TEXT PRIMARY KEY NOT NULL,
    at BIGINT NOT NULL,
    org_id TEXT,
    platform BOOLEAN NOT NULL,
    actor_id TEXT,
    actor_email TEXT NOT NULL,
    action TEXT NOT NULL,
    target_kind TEXT,
    target_id TEXT,
    target_label TEXT,
    changes TEXT NOT NULL,
    client_ip TEXT,
    user_agent TEXT
);
INSERT INTO audit_log_new SELECT id, at, org_id, platform, actor_id, actor_email, action, target_kind, target_id,
    target_label, changes, client_ip, user_agent FROM audit_log;
DROP TABLE audit_log;
ALTER TABLE audit_log_new RENAME TO audit_log;
CREATE INDEX audit_log_org ON audit_log (org_id, at DESC, id DESC);
CREATE INDEX audit_log_org_actor ON audit_log (org_id, actor_id, at DESC, id DESC);
CREATE INDEX audit_log_org_action ON audit_log (org_id, action, at DESC, id DESC);
CREATE INDEX audit_log_org_target ON audit_log (org_id, target_id, at DESC, id DESC);
CREATE INDEX audit_log_platform ON audit_log (platform, at DESC, id DESC);
CREATE INDEX audit_log_at ON audit_log (at);
