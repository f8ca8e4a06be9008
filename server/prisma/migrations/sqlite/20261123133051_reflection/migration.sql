-- AlterTable
ALTER TABLE "Memory" ADD COLUMN "activation" REAL;
ALTER TABLE "Memory" ADD COLUMN "activationAt" DATETIME;
ALTER TABLE "Memory" ADD COLUMN "duplicateOfId" TEXT;
ALTER TABLE "Memory" ADD COLUMN "staleSince" DATETIME;
ALTER TABLE "Memory" ADD COLUMN "supersededBy" TEXT;

-- CreateTable
CREATE TABLE "ReflectionSettings" (
    "orgId" TEXT NOT NULL PRIMARY KEY,
    "settings" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "ReflectionRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "triggeredBy" TEXT,
    "status" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "counts" TEXT NOT NULL,
    "errors" TEXT NOT NULL,
    "progress" TEXT NOT NULL,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME
);

-- CreateTable
CREATE TABLE "ReflectionEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "process" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "memoryId" TEXT,
    "relatedId" TEXT,
    "reason" TEXT NOT NULL,
    "details" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "DailyUsage" (
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("orgId", "environment", "day", "metric")
);

-- CreateIndex
CREATE INDEX "ReflectionRun_orgId_environment_startedAt_idx" ON "ReflectionRun"("orgId", "environment", "startedAt");

-- CreateIndex
CREATE INDEX "ReflectionRun_status_leaseExpiresAt_idx" ON "ReflectionRun"("status", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "ReflectionEvent_orgId_environment_createdAt_id_idx" ON "ReflectionEvent"("orgId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "ReflectionEvent_memoryId_idx" ON "ReflectionEvent"("memoryId");

-- CreateIndex
CREATE INDEX "ReflectionEvent_runId_idx" ON "ReflectionEvent"("runId");

-- At most one running run per organization and environment: a second start collides here (409).
CREATE UNIQUE INDEX "ReflectionRun_one_running" ON "ReflectionRun"("orgId", "environment") WHERE "status" = 'running';
