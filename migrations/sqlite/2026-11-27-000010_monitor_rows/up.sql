-- The monitor row of an app is made in the transaction that makes the app SUBMITTED or PUBLISHED (registered
-- so, or changed to it), due at once, instead of by a scan of every app for missing rows before each lease
-- of the uptime monitor. A row made earlier (the app was monitored before) is kept as it is.
CREATE TRIGGER uptime_monitor_on_insert AFTER INSERT ON apps
WHEN NEW.app_store_status IN ('SUBMITTED', 'PUBLISHED')
BEGIN
    INSERT INTO uptime_monitor (package_name, check_slot_at, consecutive_failures)
    VALUES (NEW.package_name, 0, 0)
    ON CONFLICT (package_name) DO NOTHING;
END;

CREATE TRIGGER uptime_monitor_on_status AFTER UPDATE OF app_store_status ON apps
WHEN NEW.app_store_status IN ('SUBMITTED', 'PUBLISHED')
BEGIN
    INSERT INTO uptime_monitor (package_name, check_slot_at, consecutive_failures)
    VALUES (NEW.package_name, 0, 0)
    ON CONFLICT (package_name) DO NOTHING;
END;

-- The rows the scan would have made for apps monitored before this migration.
INSERT INTO uptime_monitor (package_name, check_slot_at, consecutive_failures)
SELECT package_name, 0, 0 FROM apps
WHERE app_store_status IN ('SUBMITTED', 'PUBLISHED')
  AND NOT EXISTS (SELECT 1 FROM uptime_monitor m WHERE m.package_name = apps.package_name)
ON CONFLICT (package_name) DO NOTHING;
