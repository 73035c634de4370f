-- Nothing on SQLite: it keeps the revision of an organization's apps in its row (one writer at a time).
SELECT 1;
