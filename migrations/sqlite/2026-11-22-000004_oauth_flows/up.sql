-- OAuth sign-in in progress (PRODUCT.md §1). A flow lives from /auth/v1/authorize to /auth/v1/callback (10
-- minutes), keyed by the SHA-256 digest of the `state` sent to the provider; an auth code lives from the
-- callback to POST /auth/v1/token?grant_type=pkce (5 minutes), keyed by the digest of the code, with the
-- provider profile its ID token verified. Each row is deleted when used. Times are milliseconds since the epoch.
CREATE TABLE oauth_flows (
    state_hash TEXT PRIMARY KEY NOT NULL,
    provider TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    code_challenge_method TEXT NOT NULL,
    redirect_to TEXT NOT NULL,
    nonce TEXT NOT NULL,
    provider_verifier TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX oauth_flows_expires_at ON oauth_flows (expires_at);

CREATE TABLE oauth_auth_codes (
    code_hash TEXT PRIMARY KEY NOT NULL,
    code_challenge TEXT NOT NULL,
    code_challenge_method TEXT NOT NULL,
    provider TEXT NOT NULL,
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    email TEXT,
    email_verified BOOLEAN NOT NULL,
    claims TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX oauth_auth_codes_expires_at ON oauth_auth_codes (expires_at);
