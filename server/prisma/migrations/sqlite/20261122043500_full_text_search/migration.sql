-- Full-text candidate search (written by hand: Prisma does not model FTS5).
-- "terms" holds a memory's analysed terms (Memory.searchText), so FTS5 only splits on spaces; only
-- durable memories are indexed. "memoryId" is indexed too, which lets the triggers find a memory's row.
CREATE VIRTUAL TABLE "MemorySearch" USING fts5(
  "memoryId",
  "terms",
  tokenize = "unicode61 remove_diacritics 0 tokenchars '-_./:#@'"
);

INSERT INTO "MemorySearch" ("memoryId", "terms")
  SELECT "id", "searchText" FROM "Memory" WHERE "state" = 'durable';

CREATE TRIGGER "Memory_search_insert" AFTER INSERT ON "Memory" WHEN new."state" = 'durable' BEGIN
  INSERT INTO "MemorySearch" ("memoryId", "terms") VALUES (new."id", new."searchText");
END;

CREATE TRIGGER "Memory_search_update" AFTER UPDATE OF "state", "searchText" ON "Memory" BEGIN
  DELETE FROM "MemorySearch" WHERE "MemorySearch" MATCH '"memoryId" : "' || old."id" || '"';
  INSERT INTO "MemorySearch" ("memoryId", "terms") SELECT new."id", new."searchText" WHERE new."state" = 'durable';
END;

CREATE TRIGGER "Memory_search_delete" AFTER DELETE ON "Memory" BEGIN
  DELETE FROM "MemorySearch" WHERE "MemorySearch" MATCH '"memoryId" : "' || old."id" || '"';
END;
