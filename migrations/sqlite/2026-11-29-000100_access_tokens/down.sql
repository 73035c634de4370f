ALTER TABLE audit_log DROP COLUMN via_token;
DROP TABLE access_tokens;
