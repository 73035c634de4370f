DROP TRIGGER apps_revision ON apps;
DROP FUNCTION bump_apps_revision();
ALTER TABLE organizations DROP COLUMN apps_revision;
