-- The one-time link that makes the first platform admin (PRODUCT.md §5): while no account holds the `admin`
-- role, each start of the server stores a new token here (its SHA-256 digest only, never the token) and
-- writes the link to its log. The first signed-in user who opens it within the hour becomes an admin; using
-- it, or an admin appearing by any other way, removes it.
CREATE TABLE platform_setup_tokens (
    token_hash TEXT PRIMARY KEY NOT NULL,
    expires_at BIGINT NOT NULL
);
