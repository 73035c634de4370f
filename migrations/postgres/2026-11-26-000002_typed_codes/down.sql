ALTER TABLE one_time_codes DROP COLUMN typed;
