-- Second factors (PRODUCT.md §1a): an account's TOTP factors, their challenges, and the second step a
-- session passed. A factor's secret is stored sealed with a key derived from the server secret, never in
-- the clear; `last_used_step` is the TOTP step of the last code verified, so that each code works once.
CREATE TABLE factors (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    factor_type TEXT NOT NULL,
    status TEXT NOT NULL,
    friendly_name TEXT,
    sealed_secret TEXT NOT NULL,
    last_used_step BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    last_challenged_at BIGINT
);
CREATE INDEX factors_user_id ON factors(user_id);

-- A challenge is verified from the client address that asked for it, within five minutes.
CREATE TABLE factor_challenges (
    id TEXT PRIMARY KEY NOT NULL,
    factor_id TEXT NOT NULL REFERENCES factors(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    verified_at BIGINT,
    ip_address TEXT NOT NULL
);
CREATE INDEX factor_challenges_factor_id ON factor_challenges(factor_id);

-- The second step of a session (set: the session is aal2), carried from token to token on rotation.
ALTER TABLE refresh_tokens ADD COLUMN second_factor_method TEXT;
ALTER TABLE refresh_tokens ADD COLUMN second_factor_id TEXT;
ALTER TABLE refresh_tokens ADD COLUMN second_factor_at BIGINT;
