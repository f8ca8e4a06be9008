import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";

// The Prisma CLI is used offline only to generate clients and to diff schemas into migration SQL
// (the JS schema engine needs a driver adapter for that; an in-memory SQLite database serves).
// The server applies migrations itself, see src/db/migrations.ts.
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.sqlite.prisma",
  adapter: async () => new PrismaBetterSQLite3({ url: ":memory:" }),
});
