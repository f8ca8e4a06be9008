import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { databaseUnderTest, freshDatabase } from "@engram/test-support";
import { loadMigrations, migrate, migrationsDir } from "../src/db/migrations";
import { connectPrisma } from "../src/db/prisma";

describe(`migrations on ${databaseUnderTest}`, () => {
  it("applies every migration once and records it in Prisma's _prisma_migrations format", async () => {
    const database = await freshDatabase();
    const migrations = loadMigrations(database.provider);
    expect(migrations.length).toBeGreaterThan(0);

    expect(await migrate(database)).toEqual({ applied: migrations.map((m) => m.name), alreadyApplied: 0 });
    expect(await migrate(database)).toEqual({ applied: [], alreadyApplied: migrations.length });

    const prisma = await connectPrisma(database);
    try {
      const rows = await prisma.$queryRawUnsafe<Array<{ migration_name: string; checksum: string; finished_at: unknown; applied_steps_count: unknown }>>(
        `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
      );
      expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
      for (const [index, row] of rows.entries()) {
        const sql = readFileSync(join(migrationsDir(database.provider), row.migration_name, "migration.sql"));
        expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
        expect(row.finished_at).not.toBeNull();
        expect(Number(row.applied_steps_count)).toBe(1);
        expect(migrations[index]!.checksum).toBe(row.checksum);
      }
      // The schema is really there: the tables the models use answer queries.
      expect(await prisma.memory.count()).toBe(0);
    } finally {
      await prisma.$disconnect();
    }
  });

  it("leaves the full-text index and collection triggers in place after the last migration", async () => {
    const database = await freshDatabase();
    await migrate(database);
    const prisma = await connectPrisma(database);
    const names = async (query: string) => (await prisma.$queryRawUnsafe<Array<{ name: string }>>(query)).map((r) => r.name);
    try {
      // A later migration that rebuilds the Memory table on SQLite drops its triggers with it; this fails then.
      if (database.provider === "sqlite") {
        expect(await names(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('Memory', 'MemoryEmbedding', 'MemoryCollection') ORDER BY name`)).toEqual([
          "MemoryCollection_prune_changes",
          "MemoryEmbedding_collection_delete",
          "MemoryEmbedding_collection_insert",
          "MemoryEmbedding_collection_update",
          "Memory_collection_delete",
          "Memory_collection_insert",
          "Memory_collection_rerank",
          "Memory_collection_update",
          "Memory_search_delete",
          "Memory_search_insert",
          "Memory_search_update",
        ]);
      } else {
        expect(await names(`SELECT indexname::text AS name FROM pg_indexes WHERE tablename = 'Memory' AND indexdef LIKE '%gin%'`)).toEqual(["Memory_searchVector_idx"]);
        expect(await names(`SELECT tgname::text AS name FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname COLLATE "C"`)).toEqual([
          "MemoryCollection_prune_changes",
          "MemoryEmbedding_collection_delete",
          "MemoryEmbedding_collection_insert",
          "MemoryEmbedding_collection_update",
          "Memory_collection_delete",
          "Memory_collection_insert",
          "Memory_collection_update",
          "Memory_timeline_delete",
          "Memory_timeline_insert",
          "Memory_timeline_update",
        ]);
      }
    } finally {
      await prisma.$disconnect();
    }
  });

  it("lets concurrent starters apply each migration exactly once", async () => {
    const database = await freshDatabase();
    const results = await Promise.all([migrate(database), migrate(database), migrate(database)]);
    expect(results.reduce((sum, r) => sum + r.applied.length, 0)).toBe(loadMigrations(database.provider).length);
  });

  it("refuses to run when an applied migration was edited afterwards", async () => {
    const database = await freshDatabase();
    await migrate(database);
    const prisma = await connectPrisma(database);
    await prisma.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET checksum = 'edited'`);
    await prisma.$disconnect();
    await expect(migrate(database)).rejects.toThrow(/was changed after it was applied/);
  });

  it("keeps every stored memory and its history when later migrations rebuild tables, and counts them for retrieval", async () => {
    const database = await freshDatabase();
    const [first, ...later] = loadMigrations(database.provider);
    await migrate(database, { upTo: first!.name });
    const prisma = await connectPrisma(database);
    try {
      const at = "2026-01-01T00:00:00.000Z";
      await prisma.$executeRawUnsafe(`INSERT INTO "Organization" ("id", "name", "createdAt") VALUES ('org_old', 'Old', '${at}')`);
      await prisma.$executeRawUnsafe(
        `INSERT INTO "Memory" ("id", "orgId", "environment", "text", "memoryKind", "confidence", "state", "source", "searchText", "createdAt", "updatedAt")
         VALUES ('mem_old', 'org_old', 'production', 'Stored before the upgrade.', 'fact', 0.8, 'durable', 'api', 'stored before the upgrade.', '${at}', '${at}')`,
      );
      await prisma.$executeRawUnsafe(
        `INSERT INTO "MemoryHistory" ("id", "memoryId", "action", "toState", "actor", "createdAt") VALUES ('mhe_old', 'mem_old', 'created', 'durable', 'token:old', '${at}')`,
      );
    } finally {
      await prisma.$disconnect();
    }

    expect((await migrate(database)).applied).toEqual(later.map((m) => m.name));
    const upgraded = await connectPrisma(database);
    try {
      expect(await upgraded.memory.findUnique({ where: { id: "mem_old" } })).toMatchObject({ text: "Stored before the upgrade.", state: "durable" });
      expect(await upgraded.memoryHistory.count({ where: { memoryId: "mem_old" } })).toBe(1);
      // Retrieval's collection totals start from the memories already stored.
      expect(await upgraded.memoryCollection.findUnique({ where: { orgId_environment: { orgId: "org_old", environment: "production" } } })).toMatchObject({
        documents: 1,
        totalTerms: 4n,
      });
      // The full-text index holds their terms, scoped to their organization and environment (SQLite's FTS5).
      if (database.provider === "sqlite") {
        const indexed = (term: string) =>
          upgraded.$queryRawUnsafe(`SELECT "memoryId" FROM "MemorySearch" WHERE "MemorySearch" MATCH '"terms" : "${term}"'`);
        expect(await indexed("org_old:production:upgrade.")).toEqual([{ memoryId: "mem_old" }]);
        expect(await indexed("org_old:test:upgrade.")).toEqual([]);
      }
      // And on Postgres the timeline newest-first lookups walk holds them.
      if (database.provider === "postgres") {
        expect(await upgraded.$queryRawUnsafe(`SELECT "id", "searchVector"::text AS "terms" FROM "MemoryTimeline"`)).toEqual([
          { id: "mem_old", terms: "'before' 'stored' 'the' 'upgrade.'" },
        ]);
      }
    } finally {
      await upgraded.$disconnect();
    }
  });
});
