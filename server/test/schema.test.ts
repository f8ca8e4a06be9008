import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { migrationsDir } from "../src/db/migrations";
import { postgresSchemaFrom } from "../src/db/schema-source";

const prismaDir = new URL("../prisma/", import.meta.url).pathname;
const read = (file: string) => readFileSync(join(prismaDir, file), "utf8");

describe("Prisma schemas", () => {
  it("keeps the Postgres schema identical to the SQLite source but for the provider", () => {
    const sqlite = read("schema.sqlite.prisma");
    const postgres = read("schema.postgres.prisma");
    expect(postgres).toBe(postgresSchemaFrom(sqlite));
    const differing = sqlite.split("\n").filter((line, index) => line !== postgres.split("\n")[index]);
    expect(differing.map((line) => line.trim().split(/\s+/)[0])).toEqual(["output", "provider", "url"]);
  });

  it.each(["sqlite", "postgres"] as const)("has a %s migration for the current schema", (provider) => {
    const dir = migrationsDir(provider);
    const latest = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort().at(-1)!;
    // Each migration keeps the schema it leads to; a schema change without a migration shows here.
    expect(readFileSync(join(dir, latest, "schema.prisma"), "utf8")).toBe(read(`schema.${provider}.prisma`));
  });
});
