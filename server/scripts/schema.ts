/**
 * Schema chores for developers (never run at install or start):
 *   tsx scripts/schema.ts sync             write prisma/schema.postgres.prisma from the SQLite source
 *   tsx scripts/schema.ts migration NAME   sync, then write a migration per provider that brings the schema
 *                                          of the last migration to the current one (Postgres diffing needs
 *                                          DATABASE_URL pointing at any reachable Postgres server)
 * Each migration folder keeps the schema it leads to, which the next migration diffs from.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { postgresSchemaFrom } from "../src/db/schema-source";

const root = new URL("..", import.meta.url).pathname;
const schemaFiles = { sqlite: join(root, "prisma/schema.sqlite.prisma"), postgres: join(root, "prisma/schema.postgres.prisma") };
const configFiles = { sqlite: join(root, "prisma.config.ts"), postgres: join(root, "prisma.postgres.config.ts") };

function sync(): void {
  writeFileSync(schemaFiles.postgres, postgresSchemaFrom(readFileSync(schemaFiles.sqlite, "utf8")));
}

function newMigration(name: string): void {
  sync();
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  for (const provider of ["sqlite", "postgres"] as const) {
    const dir = join(root, "prisma/migrations", provider);
    const previous = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort().at(-1);
    const from = previous ? ["--from-schema-datamodel", join(dir, previous, "schema.prisma")] : ["--from-empty"];
    const target = join(dir, `${stamp}_${name}`);
    mkdirSync(target, { recursive: true });
    execFileSync("prisma", ["migrate", "diff", "--config", configFiles[provider], ...from, "--to-schema-datamodel", schemaFiles[provider], "--script", "-o", join(target, "migration.sql")], { stdio: "inherit", cwd: root });
    copyFileSync(schemaFiles[provider], join(target, "schema.prisma"));
    if (!existsSync(join(target, "migration.sql"))) throw new Error(`no migration written for ${provider}`);
  }
}

const [command, name] = process.argv.slice(2);
if (command === "sync") sync();
else if (command === "migration" && name && /^[a-z0-9_]+$/.test(name)) newMigration(name);
else {
  console.error("usage: tsx scripts/schema.ts sync | migration <snake_case_name>");
  process.exit(2);
}
