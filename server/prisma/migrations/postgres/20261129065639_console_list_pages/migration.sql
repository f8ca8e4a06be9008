-- DropIndex
DROP INDEX "AccessToken_orgId_idx";

-- DropIndex
DROP INDEX "Assistant_orgId_createdAt_idx";

-- CreateIndex
CREATE INDEX "AccessToken_orgId_createdAt_id_idx" ON "AccessToken"("orgId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Membership_orgId_createdAt_userId_idx" ON "Membership"("orgId", "createdAt", "userId");

-- CreateIndex
CREATE INDEX "Assistant_orgId_createdAt_id_idx" ON "Assistant"("orgId", "createdAt", "id");
