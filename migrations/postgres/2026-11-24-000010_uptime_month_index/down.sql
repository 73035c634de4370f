DROP INDEX uptime_daily_day;
CREATE INDEX uptime_daily_day ON uptime_daily(day);
