-- AlterTable
ALTER TABLE "Memory" ADD COLUMN     "searchVersion" INTEGER NOT NULL DEFAULT 0;
