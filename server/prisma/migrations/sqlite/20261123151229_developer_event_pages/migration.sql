-- DropIndex
DROP INDEX "BusinessEvent_orgId_environment_type_idx";

-- CreateIndex
CREATE INDEX "BusinessEvent_orgId_environment_receivedAt_id_idx" ON "BusinessEvent"("orgId", "environment", "receivedAt", "id");

-- CreateIndex
CREATE INDEX "BusinessEvent_orgId_environment_type_receivedAt_id_idx" ON "BusinessEvent"("orgId", "environment", "type", "receivedAt", "id");
