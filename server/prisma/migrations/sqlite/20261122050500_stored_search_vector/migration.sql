-- Nothing to do on SQLite: its full-text index is the FTS5 table "MemorySearch". (The Postgres twin of
-- this migration stores a tsvector column.)
SELECT 1;
