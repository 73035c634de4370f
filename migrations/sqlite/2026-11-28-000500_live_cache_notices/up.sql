-- Nothing on SQLite: its servers read what authorizes a request from the file at every request (the
-- PostgreSQL migration of the same version makes changes announce themselves to servers that keep it).
SELECT 1;
