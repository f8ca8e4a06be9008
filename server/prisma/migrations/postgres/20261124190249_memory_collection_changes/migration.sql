-- CreateTable
CREATE TABLE "MemoryCollectionChange" (
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "memoryId" TEXT NOT NULL,
    "delta" INTEGER NOT NULL,
    "searchText" TEXT NOT NULL,

    CONSTRAINT "MemoryCollectionChange_pkey" PRIMARY KEY ("orgId","environment","version","memoryId","delta")
);

-- The collection triggers now also log what each version changed, in the same transaction (see docs/retrieval.md):
-- each change takes the version its scope's upsert just wrote.
CREATE OR REPLACE FUNCTION "memory_collection_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH "bumped" AS (
    INSERT INTO "MemoryCollection" AS c ("orgId", "environment", "documents", "totalTerms", "version")
    SELECT "orgId", "environment", count(*), sum("memory_term_count"("searchText")), 1
    FROM "inserted" WHERE "state" = 'durable' GROUP BY "orgId", "environment" ORDER BY "orgId", "environment"
    ON CONFLICT ("orgId", "environment") DO UPDATE SET
      "documents" = c."documents" + excluded."documents", "totalTerms" = c."totalTerms" + excluded."totalTerms", "version" = c."version" + 1
    RETURNING c."orgId", c."environment", c."version"
  )
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT i."orgId", i."environment", b."version", i."id", 1, i."searchText"
  FROM "inserted" i JOIN "bumped" b ON b."orgId" = i."orgId" AND b."environment" = i."environment"
  WHERE i."state" = 'durable';
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "memory_collection_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH "changed" AS (
    SELECT n."id", n."orgId", n."environment", o."state" = 'durable' AS "left", n."state" = 'durable' AS "entered",
           o."searchText" AS "oldText", n."searchText" AS "newText"
    FROM "updated_new" n JOIN "updated_old" o ON o."id" = n."id"
    WHERE (n."state" = 'durable' OR o."state" = 'durable')
      AND (n."state" IS DISTINCT FROM o."state" OR n."searchText" IS DISTINCT FROM o."searchText")
  ), "bumped" AS (
    INSERT INTO "MemoryCollection" AS c ("orgId", "environment", "documents", "totalTerms", "version")
    SELECT "orgId", "environment", sum("entered"::int - "left"::int),
           sum(CASE WHEN "entered" THEN "memory_term_count"("newText") ELSE 0 END
               - CASE WHEN "left" THEN "memory_term_count"("oldText") ELSE 0 END), 1
    FROM "changed" GROUP BY "orgId", "environment" ORDER BY "orgId", "environment"
    ON CONFLICT ("orgId", "environment") DO UPDATE SET
      "documents" = c."documents" + excluded."documents", "totalTerms" = c."totalTerms" + excluded."totalTerms", "version" = c."version" + 1
    RETURNING c."orgId", c."environment", c."version"
  )
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT ch."orgId", ch."environment", b."version", ch."id", s."delta", s."searchText"
  FROM "changed" ch JOIN "bumped" b ON b."orgId" = ch."orgId" AND b."environment" = ch."environment"
  CROSS JOIN LATERAL (VALUES (-1, ch."oldText", ch."left"), (1, ch."newText", ch."entered")) AS s("delta", "searchText", "counted")
  WHERE s."counted";
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "memory_collection_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH "bumped" AS (
    INSERT INTO "MemoryCollection" AS c ("orgId", "environment", "documents", "totalTerms", "version")
    SELECT "orgId", "environment", -count(*), -sum("memory_term_count"("searchText")), 1
    FROM "deleted" WHERE "state" = 'durable' GROUP BY "orgId", "environment" ORDER BY "orgId", "environment"
    ON CONFLICT ("orgId", "environment") DO UPDATE SET
      "documents" = c."documents" + excluded."documents", "totalTerms" = c."totalTerms" + excluded."totalTerms", "version" = c."version" + 1
    RETURNING c."orgId", c."environment", c."version"
  )
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT d."orgId", d."environment", b."version", d."id", -1, d."searchText"
  FROM "deleted" d JOIN "bumped" b ON b."orgId" = d."orgId" AND b."environment" = d."environment"
  WHERE d."state" = 'durable';
  RETURN NULL;
END $$;

-- Every 512th version drops the changes more than 1,024 versions old, so a scope keeps 1,024 to 1,536 versions.
CREATE FUNCTION "memory_collection_prune_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "MemoryCollectionChange"
  WHERE "orgId" = new."orgId" AND "environment" = new."environment" AND "version" <= new."version" - 1024;
  RETURN NULL;
END $$;

CREATE TRIGGER "MemoryCollection_prune_changes" AFTER UPDATE OF "version" ON "MemoryCollection"
  FOR EACH ROW WHEN (new."version" % 512 = 0 AND new."version" <> old."version") EXECUTE FUNCTION "memory_collection_prune_changes"();
