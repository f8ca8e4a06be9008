-- Nothing to change on Postgres: its full-text search already filters by organization and environment
-- in the same query (see the SQLite migration of the same name).
SELECT 1;
