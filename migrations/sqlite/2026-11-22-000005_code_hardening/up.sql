-- Identity hardening (PRODUCT.md §1).
-- A sign-up's codes carry the digest of a random value left in the browser that signed up (a cookie): the
-- pending password is installed only when a code comes back with it.
ALTER TABLE one_time_codes ADD COLUMN browser_hash TEXT;

-- Failed typed codes per address, shared by every instance: at five, every live code of the address is
-- used up; a successful code clears the row; a row whose last failure is 15 minutes old starts again.
CREATE TABLE failed_codes (
    email TEXT PRIMARY KEY NOT NULL,
    failures BIGINT NOT NULL,
    last_failed_at BIGINT NOT NULL
);
