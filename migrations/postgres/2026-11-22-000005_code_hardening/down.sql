DROP TABLE failed_codes;
ALTER TABLE one_time_codes DROP COLUMN browser_hash;
