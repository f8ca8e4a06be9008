-- CreateTable
CREATE TABLE "MemoryCollectionChange" (
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "memoryId" TEXT NOT NULL,
    "delta" INTEGER NOT NULL,
    "searchText" TEXT NOT NULL,

    PRIMARY KEY ("orgId", "environment", "version", "memoryId", "delta")
);

-- The collection triggers now also log what each version changed, in the same transaction (see docs/retrieval.md).
-- The version a change belongs to is the one its upsert just wrote.
DROP TRIGGER "Memory_collection_insert";
DROP TRIGGER "Memory_collection_update";
DROP TRIGGER "Memory_collection_delete";

CREATE TRIGGER "Memory_collection_insert" AFTER INSERT ON "Memory" WHEN new."state" = 'durable' BEGIN
  INSERT INTO "MemoryCollection" ("orgId", "environment", "documents", "totalTerms", "version")
  VALUES (new."orgId", new."environment", 1,
          CASE WHEN new."searchText" = '' THEN 0 ELSE length(new."searchText") - length(replace(new."searchText", ' ', '')) + 1 END, 1)
  ON CONFLICT ("orgId", "environment") DO UPDATE SET
    "documents" = "documents" + 1, "totalTerms" = "totalTerms" + excluded."totalTerms", "version" = "version" + 1;
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT new."orgId", new."environment", "version", new."id", 1, new."searchText" FROM "MemoryCollection"
  WHERE "orgId" = new."orgId" AND "environment" = new."environment";
END;

CREATE TRIGGER "Memory_collection_update" AFTER UPDATE OF "state", "searchText" ON "Memory"
WHEN (old."state" = 'durable' OR new."state" = 'durable') AND (old."state" IS NOT new."state" OR old."searchText" IS NOT new."searchText") BEGIN
  INSERT INTO "MemoryCollection" ("orgId", "environment", "documents", "totalTerms", "version")
  VALUES (new."orgId", new."environment", (new."state" = 'durable') - (old."state" = 'durable'),
          (new."state" = 'durable') * (CASE WHEN new."searchText" = '' THEN 0 ELSE length(new."searchText") - length(replace(new."searchText", ' ', '')) + 1 END)
          - (old."state" = 'durable') * (CASE WHEN old."searchText" = '' THEN 0 ELSE length(old."searchText") - length(replace(old."searchText", ' ', '')) + 1 END), 1)
  ON CONFLICT ("orgId", "environment") DO UPDATE SET
    "documents" = "documents" + excluded."documents", "totalTerms" = "totalTerms" + excluded."totalTerms", "version" = "version" + 1;
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT new."orgId", new."environment", c."version", new."id", s."delta", s."searchText"
  FROM "MemoryCollection" c,
       (SELECT -1 AS "delta", old."searchText" AS "searchText" WHERE old."state" = 'durable'
        UNION ALL SELECT 1, new."searchText" WHERE new."state" = 'durable') s
  WHERE c."orgId" = new."orgId" AND c."environment" = new."environment";
END;

CREATE TRIGGER "Memory_collection_delete" AFTER DELETE ON "Memory" WHEN old."state" = 'durable' BEGIN
  UPDATE "MemoryCollection" SET "documents" = "documents" - 1, "version" = "version" + 1,
    "totalTerms" = "totalTerms" - (CASE WHEN old."searchText" = '' THEN 0 ELSE length(old."searchText") - length(replace(old."searchText", ' ', '')) + 1 END)
  WHERE "orgId" = old."orgId" AND "environment" = old."environment";
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT old."orgId", old."environment", "version", old."id", -1, old."searchText" FROM "MemoryCollection"
  WHERE "orgId" = old."orgId" AND "environment" = old."environment";
END;

-- Every 512th version drops the changes more than 1,024 versions old, so a scope keeps 1,024 to 1,536 versions.
CREATE TRIGGER "MemoryCollection_prune_changes" AFTER UPDATE OF "version" ON "MemoryCollection"
WHEN new."version" % 512 = 0 AND new."version" <> old."version" BEGIN
  DELETE FROM "MemoryCollectionChange"
  WHERE "orgId" = new."orgId" AND "environment" = new."environment" AND "version" <= new."version" - 1024;
END;
