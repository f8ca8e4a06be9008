import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { DatabaseConfig } from "@engram/server/db/config";
import pg from "pg";
import { afterAll, inject } from "vitest";
import "./provided-context";
import { temporaryDirectory } from "./temporary-directory";

/** The backend this run tests: the vitest project sets ENGRAM_TEST_DATABASE. */
export const databaseUnderTest = (process.env.ENGRAM_TEST_DATABASE ?? "sqlite") as "sqlite" | "postgres";

const postgresDatabases: string[] = [];

// As for temporary folders: registered before the file's own hooks, so it runs after its connections are closed.
afterAll(async () => {
  const databases = postgresDatabases.splice(0);
  if (databases.length === 0) return;
  await onPostgresAdmin(async (admin) => {
    for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
});

async function onPostgresAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: inject("postgresAdminUrl") });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** A fresh, empty database, dropped when the test file ends: a new SQLite file, or a new database on the test Postgres. */
export async function freshDatabase(): Promise<DatabaseConfig> {
  if (databaseUnderTest === "sqlite") return { provider: "sqlite", file: join(temporaryDirectory(), "engram.db") };
  const name = `engram_${randomUUID().replaceAll("-", "")}`;
  await onPostgresAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  postgresDatabases.push(name);
  const url = new URL(inject("postgresAdminUrl"));
  url.pathname = `/${name}`;
  return { provider: "postgres", url: url.toString(), poolSize: 20 };
}
