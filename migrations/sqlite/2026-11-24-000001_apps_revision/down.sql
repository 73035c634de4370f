DROP TRIGGER apps_revision_delete;
DROP TRIGGER apps_revision_update;
DROP TRIGGER apps_revision_insert;
ALTER TABLE organizations DROP COLUMN apps_revision;
