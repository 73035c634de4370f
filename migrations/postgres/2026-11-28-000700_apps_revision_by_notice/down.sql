DROP TRIGGER apps_live_cache_truncate ON apps;
CREATE OR REPLACE FUNCTION bump_apps_revision() RETURNS trigger LANGUAGE plpgsql AS $$
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
