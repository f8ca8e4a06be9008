import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// Postgres twin of prisma.config.ts. Generating needs no server; diffing connects to DATABASE_URL.
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.postgres.prisma",
  adapter: async () =>
    new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "postgresql://localhost/engram" }),
});
