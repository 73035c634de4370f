-- organizations.apps_revision: a number that changes whenever one of the organization's apps is added,
-- changed, moved in or out, or deleted. The triggers keep it, so that every writer (any server process, the
-- admin command) bumps it in the transaction of its change; a reader that kept an organization's app list
-- with the revision it read first knows whether the list is still current (GET /api/dev/apps).
ALTER TABLE organizations ADD COLUMN apps_revision BIGINT NOT NULL DEFAULT 0;

CREATE TRIGGER apps_revision_insert AFTER INSERT ON apps
BEGIN
    UPDATE organizations SET apps_revision = apps_revision + 1 WHERE id = NEW.org_id;
END;

CREATE TRIGGER apps_revision_update AFTER UPDATE ON apps
BEGIN
    UPDATE organizations SET apps_revision = apps_revision + 1 WHERE id IN (OLD.org_id, NEW.org_id);
END;

CREATE TRIGGER apps_revision_delete AFTER DELETE ON apps
BEGIN
    UPDATE organizations SET apps_revision = apps_revision + 1 WHERE id = OLD.org_id;
END;
