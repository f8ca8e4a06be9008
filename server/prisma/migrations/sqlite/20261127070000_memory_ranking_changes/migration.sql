-- The change log also names the memories whose ranking columns changed (reinforcement, confidence, subject) while
-- they stayed durable with the same terms: delta 0, no text, a version of their own. Processes that hold candidates
-- (docs/retrieval.md) read such a memory again with its change; counts ignore it. A durable memory whose time or
-- agent changed (which no path of the service does) leaves and re-enters, so held memories move with it.
DROP TRIGGER "Memory_collection_update";

CREATE TRIGGER "Memory_collection_update" AFTER UPDATE OF "state", "searchText", "createdAt", "agentSlug" ON "Memory"
WHEN (old."state" = 'durable' OR new."state" = 'durable')
  AND (old."state" IS NOT new."state" OR old."searchText" IS NOT new."searchText" OR old."createdAt" IS NOT new."createdAt" OR old."agentSlug" IS NOT new."agentSlug") BEGIN
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

CREATE TRIGGER "Memory_collection_rerank" AFTER UPDATE OF "subject", "confidence", "reinforcementCount", "recentUses", "lastReinforcedAt" ON "Memory"
WHEN old."state" = 'durable' AND new."state" = 'durable' AND old."searchText" IS new."searchText"
  AND old."createdAt" IS new."createdAt" AND old."agentSlug" IS new."agentSlug"
  AND (old."subject" IS NOT new."subject" OR old."confidence" IS NOT new."confidence" OR old."reinforcementCount" IS NOT new."reinforcementCount"
       OR old."recentUses" IS NOT new."recentUses" OR old."lastReinforcedAt" IS NOT new."lastReinforcedAt") BEGIN
  UPDATE "MemoryCollection" SET "version" = "version" + 1 WHERE "orgId" = new."orgId" AND "environment" = new."environment";
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT new."orgId", new."environment", "version", new."id", 0, '' FROM "MemoryCollection"
  WHERE "orgId" = new."orgId" AND "environment" = new."environment";
END;
