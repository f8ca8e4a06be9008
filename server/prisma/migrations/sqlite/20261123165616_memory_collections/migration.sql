-- CreateTable
CREATE TABLE "MemoryCollection" (
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "documents" INTEGER NOT NULL DEFAULT 0,
    "totalTerms" BIGINT NOT NULL DEFAULT 0,
    "version" BIGINT NOT NULL DEFAULT 0,
    "vectorsVersion" BIGINT NOT NULL DEFAULT 0,

    PRIMARY KEY ("orgId", "environment")
);

-- Triggers keep each scope's row in the transaction that changes its memories or vectors (see docs/performance.md).
-- A term count is the spaces between a row's single-space separated terms, plus one (none when empty).
INSERT INTO "MemoryCollection" ("orgId", "environment", "documents", "totalTerms", "version")
SELECT "orgId", "environment", count(*),
       sum(CASE WHEN "searchText" = '' THEN 0 ELSE length("searchText") - length(replace("searchText", ' ', '')) + 1 END), 1
FROM "Memory" WHERE "state" = 'durable' GROUP BY "orgId", "environment";

INSERT INTO "MemoryCollection" ("orgId", "environment", "vectorsVersion")
SELECT DISTINCT "orgId", "environment", 1 FROM "MemoryEmbedding" WHERE true
ON CONFLICT ("orgId", "environment") DO UPDATE SET "vectorsVersion" = 1;

CREATE TRIGGER "Memory_collection_insert" AFTER INSERT ON "Memory" WHEN new."state" = 'durable' BEGIN
  INSERT INTO "MemoryCollection" ("orgId", "environment", "documents", "totalTerms", "version")
  VALUES (new."orgId", new."environment", 1,
          CASE WHEN new."searchText" = '' THEN 0 ELSE length(new."searchText") - length(replace(new."searchText", ' ', '')) + 1 END, 1)
  ON CONFLICT ("orgId", "environment") DO UPDATE SET
    "documents" = "documents" + 1, "totalTerms" = "totalTerms" + excluded."totalTerms", "version" = "version" + 1;
END;

CREATE TRIGGER "Memory_collection_update" AFTER UPDATE OF "state", "searchText" ON "Memory"
WHEN (old."state" = 'durable' OR new."state" = 'durable') AND (old."state" IS NOT new."state" OR old."searchText" IS NOT new."searchText") BEGIN
  INSERT INTO "MemoryCollection" ("orgId", "environment", "documents", "totalTerms", "version")
  VALUES (new."orgId", new."environment", (new."state" = 'durable') - (old."state" = 'durable'),
          (new."state" = 'durable') * (CASE WHEN new."searchText" = '' THEN 0 ELSE length(new."searchText") - length(replace(new."searchText", ' ', '')) + 1 END)
          - (old."state" = 'durable') * (CASE WHEN old."searchText" = '' THEN 0 ELSE length(old."searchText") - length(replace(old."searchText", ' ', '')) + 1 END), 1)
  ON CONFLICT ("orgId", "environment") DO UPDATE SET
    "documents" = "documents" + excluded."documents", "totalTerms" = "totalTerms" + excluded."totalTerms", "version" = "version" + 1;
END;

CREATE TRIGGER "Memory_collection_delete" AFTER DELETE ON "Memory" WHEN old."state" = 'durable' BEGIN
  UPDATE "MemoryCollection" SET "documents" = "documents" - 1, "version" = "version" + 1,
    "totalTerms" = "totalTerms" - (CASE WHEN old."searchText" = '' THEN 0 ELSE length(old."searchText") - length(replace(old."searchText", ' ', '')) + 1 END)
  WHERE "orgId" = old."orgId" AND "environment" = old."environment";
END;

CREATE TRIGGER "MemoryEmbedding_collection_insert" AFTER INSERT ON "MemoryEmbedding" BEGIN
  INSERT INTO "MemoryCollection" ("orgId", "environment", "vectorsVersion") VALUES (new."orgId", new."environment", 1)
  ON CONFLICT ("orgId", "environment") DO UPDATE SET "vectorsVersion" = "vectorsVersion" + 1;
END;

CREATE TRIGGER "MemoryEmbedding_collection_update" AFTER UPDATE ON "MemoryEmbedding" BEGIN
  UPDATE "MemoryCollection" SET "vectorsVersion" = "vectorsVersion" + 1 WHERE "orgId" = new."orgId" AND "environment" = new."environment";
END;

CREATE TRIGGER "MemoryEmbedding_collection_delete" AFTER DELETE ON "MemoryEmbedding" BEGIN
  UPDATE "MemoryCollection" SET "vectorsVersion" = "vectorsVersion" + 1 WHERE "orgId" = old."orgId" AND "environment" = old."environment";
END;
