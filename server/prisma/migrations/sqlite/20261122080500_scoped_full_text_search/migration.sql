-- Full-text rows also name their memory's organization and environment ("scope", one token such as
-- "org_…:production"), so a search walks only the caller's memories, however large other organizations
-- grow. Ranking counts the "terms" column alone. Written by hand: Prisma does not model FTS5.
DROP TRIGGER "Memory_search_insert";
DROP TRIGGER "Memory_search_update";
DROP TRIGGER "Memory_search_delete";
DROP TABLE "MemorySearch";

CREATE VIRTUAL TABLE "MemorySearch" USING fts5(
  "memoryId",
  "scope",
  "terms",
  tokenize = "unicode61 remove_diacritics 0 tokenchars '-_./:#@'"
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
