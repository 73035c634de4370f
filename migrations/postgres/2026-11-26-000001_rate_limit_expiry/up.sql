-- Each counter says when no decision reads it any more (two of its windows after it started, in
-- milliseconds since the epoch), so that counters of long windows (a client known to an account for 30
-- days) and of short ones (15 minutes) are pruned each at its own time. Existing counters expire at once.
ALTER TABLE rate_limit_counters ADD COLUMN expires_at BIGINT NOT NULL DEFAULT 0;
DROP INDEX rate_limit_counters_window_start;
CREATE INDEX rate_limit_counters_expires_at ON rate_limit_counters (expires_at);
