-- The month view reads every app's rollups of one month: an index on the day that carries the counts
-- answers it from the index alone, in day order, without visiting the table.
DROP INDEX uptime_daily_day;
CREATE INDEX uptime_daily_day ON uptime_daily(day, package_name, healthy, unhealthy, total, latency_sum_ms,
    latency_count);
