-- The change log also names the memories whose ranking columns changed (reinforcement, confidence, subject) while
-- they stayed durable with the same terms: delta 0, no text, a version of their own. Processes that hold candidates'
-- columns (docs/retrieval.md) read such a memory again with its change; counts ignore it.
CREATE TRIGGER "Memory_collection_rerank" AFTER UPDATE OF "subject", "confidence", "reinforcementCount", "recentUses", "lastReinforcedAt" ON "Memory"
WHEN old."state" = 'durable' AND new."state" = 'durable' AND old."searchText" IS new."searchText"
  AND (old."subject" IS NOT new."subject" OR old."confidence" IS NOT new."confidence" OR old."reinforcementCount" IS NOT new."reinforcementCount"
       OR old."recentUses" IS NOT new."recentUses" OR old."lastReinforcedAt" IS NOT new."lastReinforcedAt") BEGIN
  UPDATE "MemoryCollection" SET "version" = "version" + 1 WHERE "orgId" = new."orgId" AND "environment" = new."environment";
  INSERT INTO "MemoryCollectionChange" ("orgId", "environment", "version", "memoryId", "delta", "searchText")
  SELECT new."orgId", new."environment", "version", new."id", 0, '' FROM "MemoryCollection"
  WHERE "orgId" = new."orgId" AND "environment" = new."environment";
END;
