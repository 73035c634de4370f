CREATE TABLE audit_log_old (
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
INSERT INTO audit_log_old SELECT id, at, org_id, platform, actor_id, actor_email, action, target_kind, target_id,
    target_label, changes, client_ip, user_agent FROM audit_log WHERE actor_id IS NOT NULL;
DROP TABLE audit_log;
ALTER TABLE audit_log_old RENAME TO audit_log;
CREATE INDEX audit_log_org ON audit_log (org_id, at DESC, id DESC);
CREATE INDEX audit_log_org_actor ON audit_log (org_id, actor_id, at DESC, id DESC);
CREATE INDEX audit_log_org_action ON audit_log (org_id, action, at DESC, id DESC);
CREATE INDEX audit_log_org_target ON audit_log (org_id, target_id, at DESC, id DESC);
CREATE INDEX audit_log_platform ON audit_log (platform, at DESC, id DESC);
CREATE INDEX audit_log_at ON audit_log (at);
