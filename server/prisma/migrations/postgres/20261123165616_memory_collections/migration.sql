-- CreateTable
CREATE TABLE "MemoryCollection" (
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "documents" INTEGER NOT NULL DEFAULT 0,
    "totalTerms" BIGINT NOT NULL DEFAULT 0,
    "version" BIGINT NOT NULL DEFAULT 0,
    "vectorsVersion" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "MemoryCollection_pkey" PRIMARY KEY ("orgId","environment")
);

-- Statement-level triggers keep each scope's row in the transaction that changes its memories or vectors, one
-- upsert per scope and statement, in key order so concurrent writers lock rows alike (see docs/performance.md).
CREATE FUNCTION "memory_term_count"(terms TEXT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN terms = '' THEN 0 ELSE length(terms) - length(replace(terms, ' ', '')) + 1 END::BIGINT
$$;

INSERT INTO "MemoryCollection" ("orgId", "environment", "documents", "totalTerms", "version")
SELECT "orgId", "environment", count(*), sum("memory_term_count"("searchText")), 1
FROM "Memory" WHERE "state" = 'durable' GROUP BY "orgId", "environment";

INSERT INTO "MemoryCollection" ("orgId", "environment", "vectorsVersion")
SELECT DISTINCT "orgId", "environment", 1 FROM "MemoryEmbedding"
ON CONFLICT ("orgId", "environment") DO UPDATE SET "vectorsVersion" = 1;

-- Transition tables differ per event, so each event has its own function.
CREATE FUNCTION "memory_collection_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MemoryCollection" AS c ("orgId", "environment", "documents", "totalTerms", "version")
  SELECT "orgId", "environment", count(*), sum("memory_term_count"("searchText")), 1
  FROM "inserted" WHERE "state" = 'durable' GROUP BY "orgId", "environment" ORDER BY "orgId", "environment"
  ON CONFLICT ("orgId", "environment") DO UPDATE SET
    "documents" = c."documents" + excluded."documents", "totalTerms" = c."totalTerms" + excluded."totalTerms", "version" = c."version" + 1;
  RETURN NULL;
END $$;

CREATE FUNCTION "memory_collection_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MemoryCollection" AS c ("orgId", "environment", "documents", "totalTerms", "version")
  SELECT n."orgId", n."environment",
         sum((n."state" = 'durable')::int - (o."state" = 'durable')::int),
         sum(CASE WHEN n."state" = 'durable' THEN "memory_term_count"(n."searchText") ELSE 0 END
             - CASE WHEN o."state" = 'durable' THEN "memory_term_count"(o."searchText") ELSE 0 END), 1
  FROM "updated_new" n JOIN "updated_old" o ON o."id" = n."id"
  WHERE (n."state" = 'durable' OR o."state" = 'durable')
    AND (n."state" IS DISTINCT FROM o."state" OR n."searchText" IS DISTINCT FROM o."searchText")
  GROUP BY n."orgId", n."environment" ORDER BY n."orgId", n."environment"
  ON CONFLICT ("orgId", "environment") DO UPDATE SET
    "documents" = c."documents" + excluded."documents", "totalTerms" = c."totalTerms" + excluded."totalTerms", "version" = c."version" + 1;
  RETURN NULL;
END $$;

CREATE FUNCTION "memory_collection_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MemoryCollection" AS c ("orgId", "environment", "documents", "totalTerms", "version")
  SELECT "orgId", "environment", -count(*), -sum("memory_term_count"("searchText")), 1
  FROM "deleted" WHERE "state" = 'durable' GROUP BY "orgId", "environment" ORDER BY "orgId", "environment"
  ON CONFLICT ("orgId", "environment") DO UPDATE SET
    "documents" = c."documents" + excluded."documents", "totalTerms" = c."totalTerms" + excluded."totalTerms", "version" = c."version" + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER "Memory_collection_insert" AFTER INSERT ON "Memory"
  REFERENCING NEW TABLE AS "inserted" FOR EACH STATEMENT EXECUTE FUNCTION "memory_collection_insert"();
CREATE TRIGGER "Memory_collection_update" AFTER UPDATE ON "Memory"
  REFERENCING OLD TABLE AS "updated_old" NEW TABLE AS "updated_new" FOR EACH STATEMENT EXECUTE FUNCTION "memory_collection_update"();
CREATE TRIGGER "Memory_collection_delete" AFTER DELETE ON "Memory"
  REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "memory_collection_delete"();

CREATE FUNCTION "memory_vectors_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MemoryCollection" AS c ("orgId", "environment", "vectorsVersion")
  SELECT DISTINCT "orgId", "environment", 1 FROM "changed_vectors" ORDER BY "orgId", "environment"
  ON CONFLICT ("orgId", "environment") DO UPDATE SET "vectorsVersion" = c."vectorsVersion" + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER "MemoryEmbedding_collection_insert" AFTER INSERT ON "MemoryEmbedding"
  REFERENCING NEW TABLE AS "changed_vectors" FOR EACH STATEMENT EXECUTE FUNCTION "memory_vectors_changed"();
CREATE TRIGGER "MemoryEmbedding_collection_update" AFTER UPDATE ON "MemoryEmbedding"
  REFERENCING NEW TABLE AS "changed_vectors" FOR EACH STATEMENT EXECUTE FUNCTION "memory_vectors_changed"();
CREATE TRIGGER "MemoryEmbedding_collection_delete" AFTER DELETE ON "MemoryEmbedding"
  REFERENCING OLD TABLE AS "changed_vectors" FOR EACH STATEMENT EXECUTE FUNCTION "memory_vectors_changed"();
