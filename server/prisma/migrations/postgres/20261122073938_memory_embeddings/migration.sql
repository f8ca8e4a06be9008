-- CreateTable
CREATE TABLE "MemoryEmbedding" (
    "memoryId" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "vector" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MemoryEmbedding_pkey" PRIMARY KEY ("memoryId")
);

-- CreateIndex
CREATE INDEX "MemoryEmbedding_orgId_environment_model_createdAt_idx" ON "MemoryEmbedding"("orgId", "environment", "model", "createdAt");

-- AddForeignKey
ALTER TABLE "MemoryEmbedding" ADD CONSTRAINT "MemoryEmbedding_memoryId_fkey" FOREIGN KEY ("memoryId") REFERENCES "Memory"("id") ON DELETE CASCADE ON UPDATE CASCADE;
