-- An audit entry made by the server's operator (an `app-server` command, the `PORTAL_ADMIN_EMAILS` setting)
-- names no account: its `actor_id` is NULL and `actor_email` says "operator (…)".
ALTER TABLE audit_log ALTER COLUMN actor_id DROP NOT NULL;
