CREATE OR REPLACE FUNCTION live_cache_notice() RETURNS trigger LANGUAGE plpgsql AS $$
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

DROP FUNCTION live_cache_channel(text);
