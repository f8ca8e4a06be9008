-- CreateTable
CREATE TABLE "RateLimitCounter" (
    "orgId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "routeGroup" TEXT NOT NULL,
    "windowStart" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "RateLimitCounter_pkey" PRIMARY KEY ("orgId","environment","routeGroup","windowStart")
);

-- CreateIndex
CREATE INDEX "RateLimitCounter_windowStart_idx" ON "RateLimitCounter"("windowStart");
