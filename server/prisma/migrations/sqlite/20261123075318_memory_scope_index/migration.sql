-- DropIndex
DROP INDEX "Memory_orgId_environment_state_agentSlug_idx";

-- DropIndex
DROP INDEX "Memory_orgId_environment_state_createdAt_idx";

-- CreateIndex
CREATE INDEX "Memory_orgId_environment_state_createdAt_id_idx" ON "Memory"("orgId", "environment", "state", "createdAt", "id");
