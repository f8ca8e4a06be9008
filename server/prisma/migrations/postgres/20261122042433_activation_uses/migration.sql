-- AlterTable
ALTER TABLE "Memory" ADD COLUMN     "recentUses" TEXT NOT NULL DEFAULT '[]';
