DROP TABLE platform_admin_seeds;

CREATE TABLE platform_admins_v1 (
    email TEXT PRIMARY KEY NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'reviewer')),
    added_at BIGINT NOT NULL,
    added_by TEXT
);
-- A bound role goes back under its account's current address; a pending one under its own (a bound role
-- wins when both name one address).
INSERT INTO platform_admins_v1 (email, role, added_at, added_by)
SELECT COALESCE(accounts.email, p.email), p.role, p.added_at, p.added_by
FROM platform_admins p LEFT JOIN accounts ON accounts.id = p.user_id
WHERE p.user_id IS NOT NULL OR NOT EXISTS (
    SELECT 1 FROM platform_admins b JOIN accounts a ON a.id = b.user_id WHERE a.email = p.email
);
DROP TABLE platform_admins;
ALTER TABLE platform_admins_v1 RENAME TO platform_admins;

ALTER TABLE accounts DROP COLUMN email_proven_at;
