-- An organization admin can require a second factor of every member (PRODUCT.md §1a).
ALTER TABLE organizations ADD COLUMN require_two_factor BOOLEAN NOT NULL DEFAULT FALSE;
