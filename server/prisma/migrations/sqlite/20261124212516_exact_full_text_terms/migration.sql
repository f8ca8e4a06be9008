-- The index holds the analyser's terms exactly as written. "unicode61" folded and split them again by its own
-- Unicode 6.1 tables: the final sigma became σ (so "λογος" and "λογοσ" were one word to the index and two to
-- retrieval), and letters it counts as separators (New Tai Lue) split a term into a phrase of two. The "ascii"
-- tokenizer splits only at ASCII characters other than letters, digits and the identifier joiners, and folds
-- only ASCII case; terms are single-space-separated and already lower-case, so each one is one token, as in
-- Postgres's tsvector. Written by hand: Prisma does not model FTS5.
DROP TRIGGER "Memory_search_insert";
DROP TRIGGER "Memory_search_update";
DROP TRIGGER "Memory_search_delete";
DROP TABLE "MemorySearch";

CREATE VIRTUAL TABLE "MemorySearch" USING fts5(
  "memoryId",
  "scope",
  "terms",
  tokenize = "ascii tokenchars '-_./:#@'"
);
INSERT INTO "MemorySearch" ("MemorySearch", "rank") VALUES ('rank', 'bm25(0.0, 0.0, 1.0)');

INSERT INTO "MemorySearch" ("memoryId", "scope", "terms")
  SELECT "id", "orgId" || ':' || "environment", "searchText" FROM "Memory" WHERE "state" = 'durable';

CREATE TRIGGER "Memory_search_insert" AFTER INSERT ON "Memory" WHEN new."state" = 'durable' BEGIN
  INSERT INTO "MemorySearch" ("memoryId", "scope", "terms") VALUES (new."id", new."orgId" || ':' || new."environment", new."searchText");
END;

CREATE TRIGGER "Memory_search_update" AFTER UPDATE OF "state", "searchText" ON "Memory" BEGIN
  DELETE FROM "MemorySearch" WHERE "MemorySearch" MATCH '"memoryId" : "' || old."id" || '"';
  INSERT INTO "MemorySearch" ("memoryId", "scope", "terms")
    SELECT new."id", new."orgId" || ':' || new."environment", new."searchText" WHERE new."state" = 'durable';
END;

CREATE TRIGGER "Memory_search_delete" AFTER DELETE ON "Memory" BEGIN
  DELETE FROM "MemorySearch" WHERE "MemorySearch" MATCH '"memoryId" : "' || old."id" || '"';
END;
