import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contract, memoryScopes, type TEnvironment, type TScope } from "@engram/contract";
import { initClient } from "@ts-rest/core";
import pg from "pg";
import { afterAll, inject } from "vitest";
import type { DatabaseConfig } from "../../src/db/config";
import { connectPrisma, type PrismaDb } from "../../src/db/prisma";
import type { Plan } from "../../src/domain/access/records";
import { DEFAULT_AUTH_CACHE_MS } from "../../src/domain/access/access-tokens";
import { createLogger } from "../../src/logger";
import type { ServerConfig } from "../../src/config";
import { type RunningServer, startServer } from "../../src/server";
import "./provided-context";

export const databaseUnderTest = (process.env.ENGRAM_TEST_DATABASE ?? "sqlite") as "sqlite" | "postgres";

const temporaryDirectories: string[] = [];
const postgresDatabases: string[] = [];

/** A new temporary folder, removed when the test file that asked for it ends (or else with the run's folder). */
export function temporaryDirectory(prefix = "engram-test-"): string {
  const dir = mkdtempSync(join(inject("temporaryRoot") ?? tmpdir(), prefix));
  temporaryDirectories.push(dir);
  return dir;
}

// Registered while the test file is being collected, before the file's own hooks; vitest runs "after" hooks in
// reverse order, so this runs once the file's servers and connections are closed.
afterAll(async () => {
  for (const dir of temporaryDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
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

export interface TestServer extends RunningServer {
  database: DatabaseConfig;
  /** A second connection, for assertions about what is (and is not) stored. */
  db: PrismaDb;
  newOrg(options?: { plan?: Plan; environmentsEnabled?: boolean; founderWorkspace?: boolean }): Promise<string>;
  newToken(orgId: string, options?: { scopes?: TScope[]; environment?: TEnvironment | null; agents?: string[] }): Promise<string>;
  /** An organization with one all-memory-scopes production token. */
  newTenant(): Promise<{ orgId: string; token: string }>;
  stop(): Promise<void>;
}

/** Server settings a test may choose; the rest are the test defaults below. */
export type TestServerOptions = Partial<Omit<ServerConfig, "database">> & {
  /** The server's clock (memory writes, activation, rate-limit windows); the system clock by default. */
  now?: () => Date;
};

/** Another server process's worth of state (its own connections and queues) over an existing database. */
export function startServerOn(database: DatabaseConfig, options: TestServerOptions = {}): Promise<RunningServer> {
  const { now, ...settings } = options;
  const config: ServerConfig = { port: 0, host: "127.0.0.1", dataDir: tmpdir(), logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, ...settings, database };
  return startServer(config, createLogger("silent"), { validateResponses: true, now });
}

/** The real server over HTTP on a free loopback port, with response validation against the contract. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = await freshDatabase();
  const server = await startServerOn(database, options);
  const db = await connectPrisma(database);
  const { organizations, tokens } = server.services;
  const newOrg: TestServer["newOrg"] = async (options = {}) =>
    (await organizations.create({ name: `org-${randomUUID().slice(0, 8)}`, ...options })).id;
  const newToken: TestServer["newToken"] = async (orgId, options = {}) =>
    (
      await tokens.create({
        orgId,
        name: `token-${randomUUID().slice(0, 8)}`,
        scopes: options.scopes ?? [...memoryScopes],
        environment: options.environment === undefined ? "production" : options.environment,
        agentSlugs: options.agents ?? null,
      })
    ).token;
  return {
    ...server,
    database,
    db,
    newOrg,
    newToken,
    async newTenant() {
      const orgId = await newOrg();
      return { orgId, token: await newToken(orgId) };
    },
    async stop() {
      await db.$disconnect();
      await server.close();
    },
  };
}

/** The contract's own typed client, checking every response body against the contract. */
export function apiClient(baseUrl: string, token: string, headers: Record<string, string> = {}) {
  return initClient(contract, {
    baseUrl,
    baseHeaders: { authorization: `Bearer ${token}`, ...headers },
    validateResponse: true,
    throwOnUnknownStatus: true,
  });
}

/** Plain HTTP, for requests the typed client would refuse to make. */
export async function rawRequest(
  baseUrl: string,
  path: string,
  init: { method?: string; token?: string; body?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = init.contentType ?? "application/json";
  const response = await fetch(baseUrl + path, { method: init.method ?? "POST", headers, body: init.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}
