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
    "searchVersion" INTEGER NOT NULL DEFAULT 0,
    "reinforcementCount" INTEGER NOT NULL DEFAULT 0,
    "lastReinforcedAt" DATETIME,
    "recentUses" TEXT NOT NULL DEFAULT '[]',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Memory_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Memory_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "BusinessEvent" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Memory" ("agentSlug", "confidence", "createdAt", "environment", "eventId", "id", "idempotencyKey", "lastReinforcedAt", "memoryKind", "orgId", "reinforcementCount", "searchText", "searchVersion", "source", "sourceActor", "sourceRequestId", "sourceTokenId", "state", "subject", "text", "updatedAt") SELECT "agentSlug", "confidence", "createdAt", "environment", "eventId", "id", "idempotencyKey", "lastReinforcedAt", "memoryKind", "orgId", "reinforcementCount", "searchText", "searchVersion", "source", "sourceActor", "sourceRequestId", "sourceTokenId", "state", "subject", "text", "updatedAt" FROM "Memory";
DROP TABLE "Memory";
ALTER TABLE "new_Memory" RENAME TO "Memory";
CREATE INDEX "Memory_orgId_environment_state_agentSlug_idx" ON "Memory"("orgId", "environment", "state", "agentSlug");
CREATE INDEX "Memory_eventId_idx" ON "Memory"("eventId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
