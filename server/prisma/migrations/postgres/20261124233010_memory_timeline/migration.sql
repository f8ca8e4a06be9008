-- The durable memories of each scope in time order with their search vectors, and nothing else: a
-- newest-first lookup walks a scope's rows in time order testing each one's vector, and these rows are a
-- third of a Memory row's width, so the walk reads a third of the pages and runs about twice as fast
-- (see docs/performance.md). Kept by triggers in the transaction of every write, like the collection row.
CREATE TABLE "MemoryTimeline" (
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "id" TEXT NOT NULL,
    "agentSlug" TEXT,
    "searchVector" tsvector NOT NULL,

    CONSTRAINT "MemoryTimeline_pkey" PRIMARY KEY ("orgId", "environment", "createdAt", "id")
);

INSERT INTO "MemoryTimeline" ("orgId", "environment", "createdAt", "id", "agentSlug", "searchVector")
SELECT "orgId", "environment", "createdAt", "id", "agentSlug", "searchVector" FROM "Memory"
WHERE "state" = 'durable'
ORDER BY "orgId", "environment", "createdAt", "id";

CREATE FUNCTION "memory_timeline_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MemoryTimeline" ("orgId", "environment", "createdAt", "id", "agentSlug", "searchVector")
  SELECT "orgId", "environment", "createdAt", "id", "agentSlug", "searchVector" FROM "inserted" WHERE "state" = 'durable';
  RETURN NULL;
END $$;

-- Only rows whose place or terms changed are moved (a reinforcement changes neither): out if they were
-- durable, back in if they are.
CREATE FUNCTION "memory_timeline_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "MemoryTimeline" t
  USING "updated_old" o JOIN "updated_new" n ON n."id" = o."id"
  WHERE o."state" = 'durable'
    AND (o."orgId", o."environment", o."createdAt", o."state", o."agentSlug", o."searchText")
        IS DISTINCT FROM (n."orgId", n."environment", n."createdAt", n."state", n."agentSlug", n."searchText")
    AND t."orgId" = o."orgId" AND t."environment" = o."environment" AND t."createdAt" = o."createdAt" AND t."id" = o."id";
  INSERT INTO "MemoryTimeline" ("orgId", "environment", "createdAt", "id", "agentSlug", "searchVector")
  SELECT n."orgId", n."environment", n."createdAt", n."id", n."agentSlug", n."searchVector"
  FROM "updated_new" n JOIN "updated_old" o ON o."id" = n."id"
  WHERE n."state" = 'durable'
    AND (o."orgId", o."environment", o."createdAt", o."state", o."agentSlug", o."searchText")
        IS DISTINCT FROM (n."orgId", n."environment", n."createdAt", n."state", n."agentSlug", n."searchText");
  RETURN NULL;
END $$;

CREATE FUNCTION "memory_timeline_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "MemoryTimeline" t USING "deleted" d
  WHERE d."state" = 'durable'
    AND t."orgId" = d."orgId" AND t."environment" = d."environment" AND t."createdAt" = d."createdAt" AND t."id" = d."id";
  RETURN NULL;
END $$;

CREATE TRIGGER "Memory_timeline_insert" AFTER INSERT ON "Memory"
  REFERENCING NEW TABLE AS "inserted" FOR EACH STATEMENT EXECUTE FUNCTION "memory_timeline_insert"();
CREATE TRIGGER "Memory_timeline_update" AFTER UPDATE ON "Memory"
  REFERENCING OLD TABLE AS "updated_old" NEW TABLE AS "updated_new" FOR EACH STATEMENT EXECUTE FUNCTION "memory_timeline_update"();
CREATE TRIGGER "Memory_timeline_delete" AFTER DELETE ON "Memory"
  REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "memory_timeline_delete"();
