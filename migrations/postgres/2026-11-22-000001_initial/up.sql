-- Initial schema (PostgreSQL). Timestamps are milliseconds since the Unix epoch (UTC); ids are UUID text;
-- lists and documents (settings, tools, permissions, hardware, e-mail lists) are JSON text.

CREATE TABLE server_secrets (
    name TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE accounts (
    id TEXT PRIMARY KEY NOT NULL,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    email_confirmed_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    last_sign_in_at BIGINT,
    profile TEXT NOT NULL DEFAULT '{}',
    display_name TEXT
);

CREATE TABLE identities (
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    email TEXT,
    email_verified BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    provider TEXT NOT NULL,
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX identities_user_id ON identities(user_id);

CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY NOT NULL,
    family_id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT NOT NULL,
    family_started_at BIGINT NOT NULL,
    revoked_at BIGINT,
    replaced_by TEXT,
    method TEXT NOT NULL
);
CREATE INDEX refresh_tokens_family_id ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_user_id ON refresh_tokens(user_id);

CREATE TABLE one_time_codes (
    id TEXT PRIMARY KEY NOT NULL,
    purpose TEXT NOT NULL,
    email TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    pending_password_hash TEXT
);
CREATE INDEX one_time_codes_email ON one_time_codes(email, purpose);
-- Not unique: a typed code's digest is sha256(email, six digits), which repeats across an address's
-- requests; a lookup matches digest, purpose, unused and unexpired.
CREATE INDEX one_time_codes_code_hash ON one_time_codes(code_hash);

CREATE TABLE platform_admins (
    email TEXT PRIMARY KEY NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'reviewer')),
    added_at BIGINT NOT NULL,
    added_by TEXT
);

CREATE TABLE organizations (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    website TEXT,
    contact_email TEXT,
    description TEXT,
    logo TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE org_members (
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX org_members_user_id ON org_members(user_id);

CREATE TABLE org_invites (
    id TEXT PRIMARY KEY NOT NULL,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    token_hash TEXT NOT NULL UNIQUE,
    invited_by TEXT NOT NULL,
    invited_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    email_sent_count INTEGER NOT NULL,
    accepted_at BIGINT,
    accepted_by TEXT,
    cancelled_at BIGINT
);
CREATE UNIQUE INDEX org_invites_one_open_per_email ON org_invites(org_id, email)
    WHERE accepted_at IS NULL AND cancelled_at IS NULL;

CREATE TABLE apps (
    package_name TEXT PRIMARY KEY NOT NULL,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE RESTRICT,
    developer_id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    onboarding_instructions TEXT NOT NULL,
    public_url TEXT NOT NULL,
    logo_url TEXT NOT NULL,
    webview_url TEXT,
    is_public BOOLEAN NOT NULL,
    app_store_status TEXT NOT NULL,
    app_type TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    review_notes TEXT,
    reviewed_by TEXT,
    reviewed_at BIGINT,
    tools TEXT NOT NULL,
    settings TEXT NOT NULL,
    hardware_requirements TEXT NOT NULL,
    permissions TEXT NOT NULL,
    shared_with_organization BOOLEAN NOT NULL,
    shared_with_emails TEXT NOT NULL
);
CREATE INDEX apps_org_id ON apps(org_id);
CREATE INDEX apps_app_store_status ON apps(app_store_status);

CREATE TABLE app_api_keys (
    package_name TEXT PRIMARY KEY NOT NULL REFERENCES apps(package_name) ON DELETE CASCADE,
    key_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

CREATE TABLE app_share_tokens (
    package_name TEXT PRIMARY KEY NOT NULL REFERENCES apps(package_name) ON DELETE CASCADE,
    token TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

CREATE TABLE review_events (
    id TEXT PRIMARY KEY NOT NULL,
    package_name TEXT NOT NULL REFERENCES apps(package_name) ON DELETE CASCADE,
    org_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_email TEXT NOT NULL,
    notes TEXT,
    at BIGINT NOT NULL,
    detail TEXT
);
CREATE INDEX review_events_package_name ON review_events(package_name, at);

CREATE TABLE images (
    id TEXT PRIMARY KEY NOT NULL,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    uploaded_by TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size BIGINT NOT NULL,
    app_package TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX images_org_id ON images(org_id);
CREATE INDEX images_app_package ON images(app_package);

CREATE TABLE email_outbox (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    link TEXT,
    created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    lease_until BIGINT,
    sent_at BIGINT,
    failed_at BIGINT,
    last_error TEXT
);
CREATE INDEX email_outbox_due ON email_outbox(sent_at, failed_at, next_attempt_at);

-- check_slot_at is the key of the due scan (not the next check time): the time of the last check (0 before the first); an app is due
-- once it is before `now - interval` (the port passes that instant as `due_before`).
CREATE TABLE uptime_monitor (
    package_name TEXT PRIMARY KEY NOT NULL REFERENCES apps(package_name) ON DELETE CASCADE,
    check_slot_at BIGINT NOT NULL,
    lease_until BIGINT,
    consecutive_failures INTEGER NOT NULL,
    last_health TEXT,
    last_online BOOLEAN,
    last_checked_at BIGINT,
    offline_alert_at BIGINT,
    last_changed_at BIGINT
);
CREATE INDEX uptime_monitor_due ON uptime_monitor(check_slot_at);

CREATE TABLE uptime_checks (
    package_name TEXT NOT NULL REFERENCES apps(package_name) ON DELETE CASCADE,
    checked_at BIGINT NOT NULL,
    health TEXT NOT NULL,
    online BOOLEAN NOT NULL,
    http_status INTEGER,
    latency_ms INTEGER,
    healthy BOOLEAN NOT NULL,
    PRIMARY KEY (package_name, checked_at)
);
CREATE INDEX uptime_checks_checked_at ON uptime_checks(checked_at);

CREATE TABLE uptime_daily (
    package_name TEXT NOT NULL REFERENCES apps(package_name) ON DELETE CASCADE,
    day TEXT NOT NULL,
    healthy INTEGER NOT NULL,
    unhealthy INTEGER NOT NULL,
    total INTEGER NOT NULL,
    latency_sum_ms BIGINT NOT NULL,
    latency_count INTEGER NOT NULL,
    PRIMARY KEY (package_name, day)
);
CREATE INDEX uptime_daily_day ON uptime_daily(day);

CREATE TABLE uptime_state_changes (
    package_name TEXT NOT NULL REFERENCES apps(package_name) ON DELETE CASCADE,
    changed_at BIGINT NOT NULL,
    online BOOLEAN NOT NULL,
    health TEXT NOT NULL,
    PRIMARY KEY (package_name, changed_at)
);
