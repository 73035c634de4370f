ALTER TABLE refresh_tokens DROP COLUMN second_factor_at;
ALTER TABLE refresh_tokens DROP COLUMN second_factor_id;
ALTER TABLE refresh_tokens DROP COLUMN second_factor_method;
DROP TABLE factor_challenges;
DROP TABLE factors;
