DROP INDEX access_tokens_raised_by;
DROP INDEX access_tokens_family;
ALTER TABLE access_tokens DROP COLUMN made_raised_by;
ALTER TABLE access_tokens DROP COLUMN made_by_family;
ALTER TABLE access_tokens DROP COLUMN made_first_factor_at;
ALTER TABLE access_tokens DROP COLUMN made_aal;
