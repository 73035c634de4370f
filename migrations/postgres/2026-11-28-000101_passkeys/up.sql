-- Passkeys (PRODUCT.md §1a): an account's WebAuthn credentials, and the WebAuthn ceremonies in flight.
-- `public_key` is what the ceremony needs to verify a sign-in (no secret); `sign_count` is the
-- authenticator's signature counter as last seen, which a sign-in must raise (unless it keeps none).
CREATE TABLE passkeys (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    credential_id TEXT NOT NULL UNIQUE,
    public_key TEXT NOT NULL,
    sign_count BIGINT NOT NULL,
    friendly_name TEXT,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT
);
CREATE INDEX passkeys_user_id ON passkeys(user_id);

-- A ceremony's server-side state: taken (deleted) by its verification, so it works once; five minutes.
-- `user_id` is the registering account, NULL for a passkey sign-in.
CREATE TABLE webauthn_challenges (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX webauthn_challenges_created_at ON webauthn_challenges(created_at);
