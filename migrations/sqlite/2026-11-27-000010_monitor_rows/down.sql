DROP TRIGGER uptime_monitor_on_insert;
DROP TRIGGER uptime_monitor_on_status;
