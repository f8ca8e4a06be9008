-- AlterTable
ALTER TABLE "Memory" ADD COLUMN     "eventId" TEXT;

-- CreateTable
CREATE TABLE "BusinessEvent" (
    "id" TEXT NOT NULL,
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
    "receivedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BusinessEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkflowState" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "track" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "details" TEXT NOT NULL,
    "lastEventId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WorkflowState_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BusinessEvent_orgId_environment_type_idx" ON "BusinessEvent"("orgId", "environment", "type");

-- CreateIndex
CREATE UNIQUE INDEX "WorkflowState_orgId_environment_workflow_subject_track_key" ON "WorkflowState"("orgId", "environment", "workflow", "subject", "track");

-- CreateIndex
CREATE INDEX "Memory_eventId_idx" ON "Memory"("eventId");

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "BusinessEvent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BusinessEvent" ADD CONSTRAINT "BusinessEvent_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkflowState" ADD CONSTRAINT "WorkflowState_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
