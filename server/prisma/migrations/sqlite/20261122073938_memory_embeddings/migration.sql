-- CreateTable
CREATE TABLE "MemoryEmbedding" (
    "memoryId" TEXT NOT NULL PRIMARY KEY,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "vector" BLOB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "MemoryEmbedding_memoryId_fkey" FOREIGN KEY ("memoryId") REFERENCES "Memory" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "MemoryEmbedding_orgId_environment_model_createdAt_idx" ON "MemoryEmbedding"("orgId", "environment", "model", "createdAt");
