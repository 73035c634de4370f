DROP INDEX rate_limit_counters_expires_at;
CREATE INDEX rate_limit_counters_window_start ON rate_limit_counters (window_start);
ALTER TABLE rate_limit_counters DROP COLUMN expires_at;
