-- organizations.apps_revision: a number that changes whenever one of the organization's apps is added,
-- changed, moved in or out, or deleted. The trigger keeps it, so that every writer (any server process, the
-- admin command) bumps it in the transaction of its change; a reader that kept an organization's app list
-- with the revision it read first knows whether the list is still current (GET /api/dev/apps).
ALTER TABLE organizations ADD COLUMN apps_revision BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION bump_apps_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE organizations SET apps_revision = apps_revision + 1 WHERE id = OLD.org_id;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.org_id IS DISTINCT FROM OLD.org_id) THEN
        UPDATE organizations SET apps_revision = apps_revision + 1 WHERE id = NEW.org_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER apps_revision AFTER INSERT OR UPDATE OR DELETE ON apps
    FOR EACH ROW EXECUTE FUNCTION bump_apps_revision();
