-- Personal access tokens (`dpt_…`): a person's way into the product API for scripts and CI. Only a keyed
-- digest of the token is stored. `org_id` NULL: every organization the owner belongs to.
-- `expiry_recorded` marks a token whose expiry the audit log has recorded.
CREATE TABLE access_tokens (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    org_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    secret_digest TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT,
    expiry_recorded BOOLEAN NOT NULL DEFAULT FALSE,
    last_used_at BIGINT,
    last_used_ip TEXT
);
CREATE INDEX access_tokens_user ON access_tokens(user_id, created_at);
CREATE INDEX access_tokens_org ON access_tokens(org_id);
CREATE INDEX access_tokens_unrecorded_expiry ON access_tokens(expires_at)
    WHERE expiry_recorded = FALSE AND revoked_at IS NULL;

-- An audit entry made through a personal access token names it.
ALTER TABLE audit_log ADD COLUMN via_token TEXT;
