-- Each term is indexed with its organization and environment in the token itself ("org_…:production:grafana"),
-- so a lookup reads one short posting list per term instead of intersecting every term with the scope's token,
-- which every memory of the organization and environment held. The table is contentless: the prefixed terms are
-- only indexed, never stored (the memory's own row keeps its searchText). "memoryId" is stored (UNINDEXED, kept by
-- contentless_unindexed) for the join back to the memory; "memoryKey" indexes the same id so the triggers find a
-- memory's row to delete. Written by hand: Prisma does not model FTS5.
DROP TRIGGER "Memory_search_insert";
DROP TRIGGER "Memory_search_update";
DROP TRIGGER "Memory_search_delete";
DROP TABLE "MemorySearch";

CREATE VIRTUAL TABLE "MemorySearch" USING fts5(
  "memoryId" UNINDEXED,
  "memoryKey",
  "terms",
  content = '',
  contentless_delete = 1,
  contentless_unindexed = 1,
  tokenize = "ascii tokenchars '-_./:#@'"
);
INSERT INTO "MemorySearch" ("MemorySearch", "rank") VALUES ('rank', 'bm25(0.0, 0.0, 1.0)');

-- Every term with its "scope" ("orgId:environment:") in front; an empty text indexes no term. Rows are indexed in
-- the order the memories were written, as FTS5 walks its rows newest first.
INSERT INTO "MemorySearch" ("memoryId", "memoryKey", "terms")
  SELECT "id", "id", CASE WHEN "searchText" = '' THEN '' ELSE "scope" || replace("searchText", ' ', ' ' || "scope") END
  FROM (SELECT "id", "searchText", "createdAt", "orgId" || ':' || "environment" || ':' AS "scope" FROM "Memory" WHERE "state" = 'durable')
  ORDER BY "createdAt", "id";

CREATE TRIGGER "Memory_search_insert" AFTER INSERT ON "Memory" WHEN new."state" = 'durable' BEGIN
  INSERT INTO "MemorySearch" ("memoryId", "memoryKey", "terms")
    SELECT new."id", new."id", CASE WHEN new."searchText" = '' THEN '' ELSE "scope" || replace(new."searchText", ' ', ' ' || "scope") END
    FROM (SELECT new."orgId" || ':' || new."environment" || ':' AS "scope");
END;

CREATE TRIGGER "Memory_search_update" AFTER UPDATE OF "state", "searchText" ON "Memory" BEGIN
  DELETE FROM "MemorySearch" WHERE "MemorySearch" MATCH '"memoryKey" : "' || old."id" || '"';
  INSERT INTO "MemorySearch" ("memoryId", "memoryKey", "terms")
    SELECT new."id", new."id", CASE WHEN new."searchText" = '' THEN '' ELSE "scope" || replace(new."searchText", ' ', ' ' || "scope") END
    FROM (SELECT new."orgId" || ':' || new."environment" || ':' AS "scope") WHERE new."state" = 'durable';
END;

CREATE TRIGGER "Memory_search_delete" AFTER DELETE ON "Memory" BEGIN
  DELETE FROM "MemorySearch" WHERE "MemorySearch" MATCH '"memoryKey" : "' || old."id" || '"';
END;
