-- A write to an app no longer updates its organization's row (apps_revision): that update held the row's
-- lock until the write's commit, so the app writes of one organization committed one after the other, and
-- its notice made every server forget the sessions it kept for the organization. The write now announces
-- itself on the schema's live-cache channel, `a:<organization>`, from its transaction; each server's
-- session cache gives the organization a new apps revision when the notice arrives
-- (adapters/db/src/live_cache). organizations.apps_revision stays, unused on PostgreSQL (SQLite keeps it).
-- Servers of an earlier version running beside this one read the column, which no longer moves: stop them
-- when this version starts (their app lists would stay as they were).
CREATE OR REPLACE FUNCTION bump_apps_revision() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    channel text := live_cache_channel(TG_TABLE_SCHEMA);
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify(channel, 'a:' || OLD.org_id);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.org_id IS DISTINCT FROM OLD.org_id) THEN
        PERFORM pg_notify(channel, 'a:' || NEW.org_id);
    END IF;
    RETURN NULL;
END
$$;

-- Emptying the table moves every revision.
CREATE TRIGGER apps_live_cache_truncate AFTER TRUNCATE ON apps
    FOR EACH STATEMENT EXECUTE FUNCTION live_cache_notice();
