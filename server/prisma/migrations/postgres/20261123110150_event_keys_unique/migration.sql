-- AlterTable
ALTER TABLE "BusinessEvent" ADD COLUMN     "response" TEXT;

-- Keep the answers of events still in the 24 h key window: event keys are no longer read from IdempotencyRecord.
UPDATE "BusinessEvent" SET "response" = (
  SELECT r."responseBody" FROM "IdempotencyRecord" AS r
  WHERE r."route" = 'memory.events' AND r."orgId" = "BusinessEvent"."orgId" AND r."environment" = "BusinessEvent"."environment"
    AND r."key" = "BusinessEvent"."idempotencyKey" AND (r."responseBody"::json ->> 'eventId') = "BusinessEvent"."id"
);

-- An event stored again under its key after the old 24 h window: the first keeps the key, every later copy is kept
-- under a key of its own, so the unique index below can be built and nothing is lost.
UPDATE "BusinessEvent" SET "idempotencyKey" = "idempotencyKey" || ':duplicate:' || "id"
WHERE "id" IN (
  SELECT "id" FROM (
    SELECT "id", ROW_NUMBER() OVER (PARTITION BY "orgId", "environment", "idempotencyKey" ORDER BY "receivedAt", "id") AS "copy"
    FROM "BusinessEvent"
  ) AS ranked
  WHERE "copy" > 1
);

-- CreateIndex
CREATE UNIQUE INDEX "BusinessEvent_orgId_environment_idempotencyKey_key" ON "BusinessEvent"("orgId", "environment", "idempotencyKey");
