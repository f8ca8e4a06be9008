-- The change log also names the memories whose ranking columns changed (reinforcement, confidence, subject) while
-- they stayed durable with the same terms: delta 0, no text, at the statement's version. Processes that hold
-- candidates (docs/retrieval.md) read such a memory again with its change; counts ignore it. A durable memory whose
-- time or agent changed (which no path of the service does) leaves and re-enters, so held memories move with it.
CREATE OR REPLACE FUNCTION "memory_collection_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH "compared" AS (
    SELECT n."id", n."orgId", n."environment", o."state" AS "oldState", n."state" AS "newState",
           o."searchText" AS "oldText", n."searchText" AS "newText",
           (n."state" IS DISTINCT FROM o."state" OR n."searchText" IS DISTINCT FROM o."searchText"
            OR n."createdAt" IS DISTINCT FROM o."createdAt" OR n."agentSlug" IS DISTINCT FROM o."agentSlug") AS "moved",
           (n."subject" IS DISTINCT FROM o."subject" OR n."confidence" IS DISTINCT FROM o."confidence"
            OR n."reinforcementCount" IS DISTINCT FROM o."reinforcementCount" OR n."recentUses" IS DISTINCT FROM o."recentUses"
            OR n."lastReinforcedAt" IS DISTINCT FROM o."lastReinforcedAt") AS "reranked"
    FROM "updated_new" n JOIN "updated_old" o ON o."id" = n."id"
    WHERE n."state" = 'durable' OR o."state" = 'durable'
  ), "changed" AS (
    -- Not moved, one side durable means both are: such a row is only reranked.
    SELECT "id", "orgId", "environment", "oldText", "newText",
           "moved" AND "oldState" = 'durable' AS "left", "moved" AND "newState" = 'durable' AS "entered", NOT "moved" AS "reranked"
    FROM "compared" WHERE "moved" OR "reranked"
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
  CROSS JOIN LATERAL (VALUES (-1, ch."oldText", ch."left"), (0, '', ch."reranked"), (1, ch."newText", ch."entered")) AS s("delta", "searchText", "logged")
  WHERE s."logged";
  RETURN NULL;
END $$;
