-- Recovery codes (PRODUCT.md §1a): an account's set of single-use codes belongs to its `recovery_code`
-- factor. Each code is stored as a keyed digest (HMAC with the server's digest key, bound to the factor), never
-- in the clear; `used_at` is set when the code is spent.
CREATE TABLE recovery_codes (
    id TEXT PRIMARY KEY NOT NULL,
    factor_id TEXT NOT NULL REFERENCES factors(id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX recovery_codes_factor_id ON recovery_codes(factor_id);

-- The client of a session (refresh-token family) as last seen: its user agent and address (through the
-- trusted proxies), for the account's sessions list. The session's life stays with `refresh_tokens`.
CREATE TABLE session_clients (
    family_id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    user_agent TEXT,
    ip_address TEXT,
    last_used_at BIGINT NOT NULL
);
CREATE INDEX session_clients_user_id ON session_clients(user_id);
