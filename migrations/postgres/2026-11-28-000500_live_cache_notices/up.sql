-- What authorizes a request (a session's live head, its account's platform role and second factors, the
-- account's role in an organization, the organization's two-factor rule and apps revision) may be kept in
-- each server's memory. Every change to the rows it is read from announces itself, from the transaction
-- that makes it (NOTIFY is delivered at commit, never for a rollback), on a channel of this schema's own:
-- `f:<family>` for a session's tokens, `u:<user>` for an account's platform role, factors and passkeys,
-- `o:<organization>` for its members and its row. A server forgets what a notice names before it trusts
-- its memory again (adapters/db/src/live_cache).
CREATE FUNCTION live_cache_notice() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    channel text := left('live_cache ' || TG_TABLE_SCHEMA, 63);
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify(channel, '*');
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify(channel, TG_ARGV[0] || ':' || coalesce(to_jsonb(OLD) ->> TG_ARGV[1], ''));
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify(channel, TG_ARGV[0] || ':' || coalesce(to_jsonb(NEW) ->> TG_ARGV[1], ''));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER refresh_tokens_live_cache AFTER INSERT OR UPDATE OR DELETE ON refresh_tokens
    FOR EACH ROW EXECUTE FUNCTION live_cache_notice('f', 'family_id');
CREATE TRIGGER platform_admins_live_cache AFTER INSERT OR UPDATE OR DELETE ON platform_admins
    FOR EACH ROW EXECUTE FUNCTION live_cache_notice('u', 'user_id');
CREATE TRIGGER factors_live_cache AFTER INSERT OR UPDATE OR DELETE ON factors
    FOR EACH ROW EXECUTE FUNCTION live_cache_notice('u', 'user_id');
CREATE TRIGGER passkeys_live_cache AFTER INSERT OR UPDATE OR DELETE ON passkeys
    FOR EACH ROW EXECUTE FUNCTION live_cache_notice('u', 'user_id');
CREATE TRIGGER org_members_live_cache AFTER INSERT OR UPDATE OR DELETE ON org_members
    FOR EACH ROW EXECUTE FUNCTION live_cache_notice('o', 'org_id');
CREATE TRIGGER organizations_live_cache
    AFTER INSERT OR DELETE OR UPDATE OF apps_revision, require_two_factor ON organizations
    FOR EACH ROW EXECUTE FUNCTION live_cache_notice('o', 'id');

CREATE TRIGGER refresh_tokens_live_cache_truncate AFTER TRUNCATE ON refresh_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION live_cache_notice();
CREATE TRIGGER platform_admins_live_cache_truncate AFTER TRUNCATE ON platform_admins
    FOR EACH STATEMENT EXECUTE FUNCTION live_cache_notice();
CREATE TRIGGER factors_live_cache_truncate AFTER TRUNCATE ON factors
    FOR EACH STATEMENT EXECUTE FUNCTION live_cache_notice();
CREATE TRIGGER passkeys_live_cache_truncate AFTER TRUNCATE ON passkeys
    FOR EACH STATEMENT EXECUTE FUNCTION live_cache_notice();
CREATE TRIGGER org_members_live_cache_truncate AFTER TRUNCATE ON org_members
    FOR EACH STATEMENT EXECUTE FUNCTION live_cache_notice();
CREATE TRIGGER organizations_live_cache_truncate AFTER TRUNCATE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION live_cache_notice();
