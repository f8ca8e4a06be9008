-- CreateIndex
CREATE INDEX "Memory_orgId_environment_state_agentSlug_createdAt_idx" ON "Memory"("orgId", "environment", "state", "agentSlug", "createdAt");
