import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { memoryScopes, type TEnvironment, type TScope } from "@engram/contract";
import type { ServerConfig } from "@engram/server/config";
import type { DatabaseConfig } from "@engram/server/db/config";
import { connectPrisma, type PrismaDb } from "@engram/server/db/prisma";
import { createLogger } from "@engram/server/logger";
import { type RunningServer, type StartOptions, startServer } from "@engram/server/server";
import { freshDatabase } from "./database";
import { SessionClient } from "./session-client";
import { testServerConfig } from "./server-config";

type OrgOptions = Omit<Parameters<RunningServer["services"]["organizations"]["create"]>[0], "name">;

export interface TestServer extends RunningServer {
  database: DatabaseConfig;
  /** A second connection, for assertions about what is (and is not) stored. */
  db: PrismaDb;
  newOrg(options?: OrgOptions): Promise<string>;
  newToken(orgId: string, options?: { scopes?: TScope[]; environment?: TEnvironment | null; agents?: string[] }): Promise<string>;
  /** An organization with one all-memory-scopes production token. */
  newTenant(): Promise<{ orgId: string; token: string }>;
  /** A new account, member of `orgId` with `role`, and its password. */
  newPerson(orgId: string, role?: "owner" | "admin" | "member"): Promise<{ userId: string; email: string; password: string }>;
  /** A new account signed in (its own browser), member of `orgId` with `role`. */
  signedIn(orgId: string, role?: "owner" | "admin" | "member"): Promise<SessionClient & { userId: string; email: string; password: string }>;
  stop(): Promise<void>;
}

/** Server settings a test may choose; the rest are the test defaults below. */
export type TestServerOptions = Partial<Omit<ServerConfig, "database">> & {
  /** The server's clock (memory writes, activation, rate-limit windows); the system clock by default. */
  now?: () => Date;
  /** Where the server logs; silent by default. */
  logger?: Logger;
  /** Limits on a request's arrival other than the server's own (a test cannot wait a minute). */
  arrivalLimits?: StartOptions["arrivalLimits"];
};

/** Another server process's worth of state (its own connections and queues) over an existing database. */
export function startServerOn(database: DatabaseConfig, options: TestServerOptions = {}): Promise<RunningServer> {
  const { now, logger, arrivalLimits, ...settings } = options;
  return startServer(testServerConfig(database, settings), logger ?? createLogger("silent"), { validateResponses: true, now, arrivalLimits });
}

/** The real server over HTTP on a free loopback port, with response validation against the contract. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = await freshDatabase();
  const server = await startServerOn(database, options);
  const db = await connectPrisma(database);
  const { organizations, tokens, users, memberships } = server.services;
  const newPerson: TestServer["newPerson"] = async (orgId, role = "member") => {
    const password = `password-${randomUUID()}`;
    const { user } = await users.create({ email: `person-${randomUUID().slice(0, 12)}@example.com`, password });
    await memberships.add(orgId, user.id, role, "cli");
    return { userId: user.id, email: user.email, password };
  };
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
    newPerson,
    async signedIn(orgId, role = "member") {
      const person = await newPerson(orgId, role);
      const client = new SessionClient(server.url);
      await client.signIn(person.email, person.password);
      return Object.assign(client, person);
    },
    async stop() {
      await db.$disconnect();
      await server.close();
    },
  };
}
