import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMigrations, migrate, migrationsDir } from "../src/db/migrations";
import { connectPrisma } from "../src/db/prisma";
import { databaseUnderTest, freshDatabase } from "./support/harness";

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
});
