DELETE FROM audit_log WHERE actor_id IS NULL;
ALTER TABLE audit_log ALTER COLUMN actor_id SET NOT NULL;
