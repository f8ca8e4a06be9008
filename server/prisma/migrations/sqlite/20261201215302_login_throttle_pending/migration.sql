-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_LoginThrottle" (
    "key" TEXT NOT NULL,
    "windowStart" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL,
    "pending" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("key", "windowStart")
);
INSERT INTO "new_LoginThrottle" ("failures", "key", "windowStart") SELECT "failures", "key", "windowStart" FROM "LoginThrottle";
DROP TABLE "LoginThrottle";
ALTER TABLE "new_LoginThrottle" RENAME TO "LoginThrottle";
CREATE INDEX "LoginThrottle_windowStart_idx" ON "LoginThrottle"("windowStart");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
