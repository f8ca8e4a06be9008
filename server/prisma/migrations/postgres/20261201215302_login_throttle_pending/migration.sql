-- AlterTable
ALTER TABLE "LoginThrottle" ADD COLUMN     "pending" INTEGER NOT NULL DEFAULT 0;
