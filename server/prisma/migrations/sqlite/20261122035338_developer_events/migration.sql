-- CreateTable
CREATE TABLE "BusinessEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "source" TEXT,
    "subject" TEXT,
    "metadata" TEXT,
    "idempotencyKey" TEXT NOT NULL,
    "keySource" TEXT NOT NULL,
    "triageRule" TEXT,
    "effectsSuppressed" BOOLEAN NOT NULL,
    "tokenId" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL,
    CONSTRAINT "BusinessEvent_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WorkflowState" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "track" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "details" TEXT NOT NULL,
    "lastEventId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "WorkflowState_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Memory" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "agentSlug" TEXT,
    "text" TEXT NOT NULL,
    "subject" TEXT,
    "memoryKind" TEXT NOT NULL,
    "confidence" REAL NOT NULL,
    "state" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "sourceRequestId" TEXT,
    "sourceTokenId" TEXT,
    "sourceActor" TEXT,
    "idempotencyKey" TEXT,
    "eventId" TEXT,
    "searchText" TEXT NOT NULL,
    "reinforcementCount" INTEGER NOT NULL DEFAULT 0,
    "lastReinforcedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Memory_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Memory_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "BusinessEvent" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Memory" ("agentSlug", "confidence", "createdAt", "environment", "id", "idempotencyKey", "lastReinforcedAt", "memoryKind", "orgId", "reinforcementCount", "searchText", "source", "sourceActor", "sourceRequestId", "sourceTokenId", "state", "subject", "text", "updatedAt") SELECT "agentSlug", "confidence", "createdAt", "environment", "id", "idempotencyKey", "lastReinforcedAt", "memoryKind", "orgId", "reinforcementCount", "searchText", "source", "sourceActor", "sourceRequestId", "sourceTokenId", "state", "subject", "text", "updatedAt" FROM "Memory";
DROP TABLE "Memory";
ALTER TABLE "new_Memory" RENAME TO "Memory";
CREATE INDEX "Memory_orgId_environment_state_agentSlug_idx" ON "Memory"("orgId", "environment", "state", "agentSlug");
CREATE INDEX "Memory_eventId_idx" ON "Memory"("eventId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "BusinessEvent_orgId_environment_type_idx" ON "BusinessEvent"("orgId", "environment", "type");

-- CreateIndex
CREATE UNIQUE INDEX "WorkflowState_orgId_environment_workflow_subject_track_key" ON "WorkflowState"("orgId", "environment", "workflow", "subject", "track");
