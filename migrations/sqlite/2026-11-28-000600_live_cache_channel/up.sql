-- Nothing on SQLite: the PostgreSQL migration of the same version renames a notice channel.
SELECT 1;
