import { memoryScopes } from "@engram/contract";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { databaseUnderTest, freshDatabase, rawRequest, startServerOn, startTcpProxy } from "@engram/test-support";
import type { DatabaseConfig } from "../src/db/config";
import type { RunningServer } from "../src/server";

/**
 * A database that is down or busy answers `503 service_unavailable` with Retry-After, never a 500, and the
 * server recovers by itself once the database does.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serverOn(database: DatabaseConfig): Promise<{ server: RunningServer; token: string; memoryId: string }> {
  const server = await startServerOn(database);
  cleanups.push(() => server.close());
  const org = await server.services.organizations.create({ name: "Unavailable database" });
  const { token } = await server.services.tokens.create({ orgId: org.id, name: "writer", scopes: [...memoryScopes], environment: "production" });
  const created = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "Written while the database answered." }) });
  expect(created.status).toBe(201);
  return { server, token, memoryId: created.body.memory.id };
}

/** The documented error shape, with Retry-After in the header and the body. */
function expectUnavailable(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({
    error: { message: expect.stringMatching(/database/), type: "server_error", code: "service_unavailable", param: null, retry_after: expect.any(Number) },
  });
  expect(res.headers.get("retry-after")).toBe(String(res.body.error.retry_after));
}

function requests(url: string, token: string, memoryId: string) {
  return {
    encode: () => rawRequest(url, "/v1/memory", { token, body: JSON.stringify({ text: "Written while the database was away." }) }),
    reinforce: () => rawRequest(url, `/v1/memory/${memoryId}/reinforce`, { token, body: "{}" }),
    suppress: () => rawRequest(url, `/v1/memory/${memoryId}/suppress`, { token, body: "{}" }),
    retrieve: () => rawRequest(url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "database answered" }) }),
    remove: () => rawRequest(url, `/v1/memory/${memoryId}`, { token, method: "DELETE" }),
  };
}

describe.runIf(databaseUnderTest === "sqlite")("SQLite busy past its timeout", () => {
  it("answers writes 503 while another connection holds the write lock, serves reads, and writes again once it is released", async () => {
    const database = await freshDatabase();
    if (database.provider !== "sqlite") throw new Error("expected SQLite");
    const { server, token, memoryId } = await serverOn({ ...database, busyTimeoutMs: 200 });
    const send = requests(server.url, token, memoryId);

    const locker = new Database(database.file);
    cleanups.push(() => void locker.close());
    locker.exec("BEGIN EXCLUSIVE");
    for (const write of [send.encode, send.reinforce, send.suppress, send.remove]) expectUnavailable(await write());
    // WAL readers never wait for the writer.
    expect((await send.retrieve()).status).toBe(200);

    // A burst of encodes waits once, together, not once per encode in turn (40 of them would take 8 s).
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 40 }, () => send.encode()));
    for (const res of burst) expectUnavailable(res);
    expect(Date.now() - started).toBeLessThan(5000);

    locker.exec("COMMIT");
    expect((await send.encode()).status).toBe(201);
    expect((await send.reinforce()).status).toBe(200);
    expect((await send.remove()).status).toBe(200);
  });
});

describe.runIf(databaseUnderTest === "postgres")("Postgres down or busy", () => {
  async function admin(url: string) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(() => client.end());
    return client;
  }

  /** How many of the database's sessions wait for a lock (asked outside a transaction, which would keep its first answer). */
  async function waitingOnLocks(client: pg.Client): Promise<number> {
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
    return rows[0].n;
  }

  it("answers 503 while the server is unreachable, and serves again once it is back", async () => {
    const database = await freshDatabase();
    if (database.provider !== "postgres") throw new Error("expected Postgres");
    const direct = new URL(database.url);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    cleanups.push(() => proxy.down());
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const { server, token, memoryId } = await serverOn({ ...database, url: viaProxy.toString(), busyTimeoutMs: 1000 });
    const send = requests(server.url, token, memoryId);

    await proxy.down();
    for (const request of [send.encode, send.reinforce, send.retrieve, send.remove]) expectUnavailable(await request());

    await proxy.up();
    expect((await send.encode()).status).toBe(201);
    expect((await send.reinforce()).status).toBe(200);
    expect((await send.retrieve()).status).toBe(200);
  });

  it("answers 503 to transactions whose connections are terminated, rolls them back, and keeps its pool whole", async () => {
    const database = await freshDatabase();
    if (database.provider !== "postgres") throw new Error("expected Postgres");
    const { server, token, memoryId } = await serverOn({ ...database, poolSize: 2 });
    const send = requests(server.url, token, memoryId);

    // Two writes held inside their transactions by a lock on the history table, then their connections killed.
    const locker = await admin(database.url);
    const observer = await admin(database.url);
    await locker.query(`BEGIN; LOCK TABLE "MemoryHistory" IN ACCESS EXCLUSIVE MODE`);
    const held = [send.reinforce(), send.encode()];
    await expect.poll(() => waitingOnLocks(observer), { timeout: 15_000 }).toBe(2);
    await observer.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    for (const res of await Promise.all(held)) expectUnavailable(res);
    await locker.query("ROLLBACK");

    // Nothing of them was written, and both pool connections serve again.
    const { rows } = await observer.query(`SELECT "reinforcementCount" AS n, (SELECT count(*)::int FROM "Memory") AS memories FROM "Memory" WHERE id = $1`, [memoryId]);
    expect(rows[0]).toEqual({ n: 0, memories: 1 });
    const again = await Promise.all([send.reinforce(), send.encode(), send.suppress()]);
    expect(again.map((res) => res.status)).toEqual([200, 201, 200]);
  });

  // A busy timeout of 0 is "never wait", not pg's "no timeout": the pool still gives up, after a moment to connect.
  it.each([300, 0])("answers 503 when no connection frees up within the busy timeout (%i ms)", async (busyTimeoutMs) => {
    const database = await freshDatabase();
    if (database.provider !== "postgres") throw new Error("expected Postgres");
    const { server, token, memoryId } = await serverOn({ ...database, poolSize: 1, busyTimeoutMs });
    const send = requests(server.url, token, memoryId);

    // The pool's one connection waits on a lock, so the next request finds none free.
    const locker = await admin(database.url);
    const observer = await admin(database.url);
    await locker.query(`BEGIN; LOCK TABLE "Memory" IN ACCESS EXCLUSIVE MODE`);
    const held = send.retrieve();
    await expect.poll(() => waitingOnLocks(observer), { timeout: 15_000 }).toBe(1);
    expectUnavailable(await send.reinforce());

    await locker.query("ROLLBACK");
    expect((await held).status).toBe(200);
    expect((await send.reinforce()).status).toBe(200);
  });

  it("answers 503 once its database is dropped", async () => {
    const database = await freshDatabase();
    if (database.provider !== "postgres") throw new Error("expected Postgres");
    const { server, token, memoryId } = await serverOn(database);
    const send = requests(server.url, token, memoryId);

    const name = new URL(database.url).pathname.slice(1);
    const adminUrl = new URL(database.url);
    adminUrl.pathname = "/postgres";
    await (await admin(adminUrl.toString())).query(`DROP DATABASE ${name} WITH (FORCE)`);
    for (const request of [send.encode, send.reinforce, send.retrieve]) expectUnavailable(await request());
  });
});
