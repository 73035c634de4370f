DROP TRIGGER uptime_monitor_on_insert ON apps;
DROP TRIGGER uptime_monitor_on_status ON apps;
DROP FUNCTION make_uptime_monitor();
