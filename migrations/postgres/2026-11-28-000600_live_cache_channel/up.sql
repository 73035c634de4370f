-- The channel a schema's changes are announced on (2026-11-28-000500_live_cache_notices) was cut to 63
-- characters; PostgreSQL refuses a channel name of 64 bytes or more, so a schema name with multibyte
-- characters made every write to the six watched tables fail. The channel is now 'live_cache <schema>'
-- while that fits in 63 bytes (unchanged for every schema it worked for) and 'live_cache <md5 of schema>'
-- otherwise, named by one function that the triggers and the listening connection
-- (adapters/db/src/live_cache) call.
CREATE FUNCTION live_cache_channel(schema_name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN octet_length('live_cache ' || schema_name) <= 63
                THEN 'live_cache ' || schema_name
                ELSE 'live_cache ' || md5(schema_name) END
$$;

CREATE OR REPLACE FUNCTION live_cache_notice() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    channel text := live_cache_channel(TG_TABLE_SCHEMA);
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
