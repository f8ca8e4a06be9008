-- AlterTable
ALTER TABLE "Memory" ADD COLUMN     "supersessionDismissedBy" TEXT;
