-- The month view reads every app's rollups of one month: an index on the day that carries the counts
-- answers it with an index-only scan, in day order.
DROP INDEX uptime_daily_day;
CREATE INDEX uptime_daily_day ON uptime_daily(day, package_name)
    INCLUDE (healthy, unhealthy, total, latency_sum_ms, latency_count);
