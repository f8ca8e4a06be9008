-- CreateIndex
CREATE INDEX "WorkflowState_orgId_environment_updatedAt_idx" ON "WorkflowState"("orgId", "environment", "updatedAt");
