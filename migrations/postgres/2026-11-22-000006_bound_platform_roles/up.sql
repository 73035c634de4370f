-- Proven addresses, platform roles bound to accounts, and addresses seeded once (PRODUCT.md §1, §5).
--
-- accounts.email_proven_at: when somebody first showed they own the address (a link or code from an e-mail
-- was used, or a provider asserted a verified e-mail). The confirmation at sign-up when no mailer is
-- configured does not set it. An account linked before to a provider identity that verified the same
-- address counts as proven since then; no other existing account can be known to be proven.
ALTER TABLE accounts ADD COLUMN email_proven_at BIGINT;
UPDATE accounts SET email_proven_at = (
    SELECT MIN(identities.created_at) FROM identities
    WHERE identities.user_id = accounts.id
      AND identities.email_verified
      AND identities.email = accounts.email
);

-- platform_admins: a role is bound to an account (user_id) and follows it, or is pending (user_id NULL) for
-- the address in email until an account proves that address. One role per account, one pending role per
-- address. An existing role binds to the account with its address only when that address is proven; the
-- others wait (`app-server admin grant` binds one to an existing account at once).
CREATE TABLE platform_admins_v6 (
    id TEXT PRIMARY KEY NOT NULL,
    email TEXT NOT NULL,
    user_id TEXT UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('admin', 'reviewer')),
    added_at BIGINT NOT NULL,
    added_by TEXT
);
INSERT INTO platform_admins_v6 (id, email, user_id, role, added_at, added_by)
SELECT gen_random_uuid()::text, old.email,
       (SELECT accounts.id FROM accounts WHERE accounts.email = old.email AND accounts.email_proven_at IS NOT NULL),
       old.role, old.added_at, old.added_by
FROM platform_admins old;
DROP TABLE platform_admins;
ALTER TABLE platform_admins_v6 RENAME TO platform_admins;
CREATE UNIQUE INDEX platform_admins_pending_email ON platform_admins (email) WHERE user_id IS NULL;

-- The addresses PORTAL_ADMIN_EMAILS has added: each is added once, so a role revoked since stays revoked.
CREATE TABLE platform_admin_seeds (
    email TEXT PRIMARY KEY NOT NULL,
    seeded_at BIGINT NOT NULL
);
