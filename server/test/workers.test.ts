import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MODEL_ID } from "@engram/contract";
import {
  answer,
  type ChatUpstream,
  type EngramServe,
  freshDatabase,
  isAlive,
  onNewConnection,
  SessionClient,
  startChatUpstream,
  startEmbeddingsServer,
  startEngramServe,
  startServerOn,
  startTcpProxy,
} from "@engram/test-support";
import type { DatabaseConfig } from "../src/db/config";
import { connectPrisma, type PrismaDb } from "../src/db/prisma";

/**
 * `engram serve --workers N`: the workers share the port and the database, and everything they share is
 * correct across them. Each new connection goes to the next worker, so a run of requests on fresh
 * connections reaches every worker.
 */
const WORKERS = 2;
let serve: EngramServe;
let upstream: ChatUpstream;
/** A connection of the test's own to the workers' database. */
let db: PrismaDb;
beforeAll(async () => {
  upstream = await startChatUpstream();
  const database = await freshDatabase();
  serve = await startEngramServe(database, WORKERS, {
    ENGRAM_RATE_LIMITS: "free.memory.staging=10",
    ENGRAM_UPSTREAM_BASE_URL: upstream.baseUrl,
    ENGRAM_UPSTREAM_API_KEY: "sk-upstream",
    ENGRAM_UPSTREAM_MODEL: "upstream-model",
  });
  db = await connectPrisma(database);
}, 60_000);
afterAll(async () => {
  await db?.$disconnect();
  await serve?.stop("SIGKILL");
  await upstream?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The same request on `count` fresh connections, one after another, so every worker answers some. */
async function everyWorker(count: number, path: string, init: Parameters<typeof onNewConnection>[1]) {
  const answers = [];
  for (let i = 0; i < count; i++) answers.push(await onNewConnection(serve.url + path, init));
  return answers;
}
/** Which worker answered a request, from its request log line (which may reach the pipe a moment after the answer). */
async function workerOf(requestId: string): Promise<string | undefined> {
  const pattern = new RegExp(`"worker":(\\d+),"requestId":"${requestId}"`);
  for (let tries = 0; tries < 100 && !pattern.test(serve.output()); tries++) await new Promise((r) => setTimeout(r, 20));
  return serve.output().match(pattern)?.[1];
}

async function owner(): Promise<SessionClient> {
  const client = new SessionClient(serve.url);
  await client.signIn("admin@localhost", serve.adminPassword);
  return client;
}

async function newToken(
  client: SessionClient,
  environment: "production" | "staging" = "production",
  scopes = ["memory:read", "memory:write", "inference:chat"],
): Promise<{ id: string; token: string }> {
  const res = await client.post("/api/organization/tokens", { name: `t-${Math.random()}`, scopes, environment });
  if (res.status !== 201) throw new Error(`token create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { id: res.body.record.id, token: res.body.token };
}

describe("engram serve with workers", () => {
  it("runs the workers it was asked for, each answering on the shared port", async () => {
    expect(serve.workerPids()).toHaveLength(WORKERS);
    const answers = await everyWorker(WORKERS * 2, "/v1/memory", { headers: bearer(serve.token), body: { text: "Spread over the workers." } });
    expect(answers.map((a) => a.status)).toEqual(Array(WORKERS * 2).fill(201));
    const workers = await Promise.all(answers.map((a) => workerOf(a.headers["x-request-id"] as string)));
    expect(workers.every(Boolean)).toBe(true);
    expect(new Set(workers).size).toBe(WORKERS);
  });

  it("counts one rate limit across the workers", async () => {
    const { token } = await newToken(await owner(), "staging");
    // The limit's windows are the clock's minutes (the workers' own clocks): a burst begun near a minute's end
    // would be counted in two windows, so it starts in a fresh one when little of this one is left.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const answers = await everyWorker(24, "/v1/memory/retrieve", { headers: bearer(token), body: { query: "anything" } });
    const admitted = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    expect(admitted + limited.length).toBe(24);
    expect(admitted).toBe(10);
    expect(limited[0]!.body.error).toMatchObject({ code: "rate_limit_exceeded" });
  }, 45_000);

  it("writes a memory and an event once per idempotency key, whichever workers the retries reach", async () => {
    const { token } = await newToken(await owner());
    const sends = Array.from({ length: 8 }, () =>
      onNewConnection(`${serve.url}/v1/memory`, { headers: { ...bearer(token), "idempotency-key": "one-write" }, body: { text: "Written once across workers." } }),
    );
    const encoded = await Promise.all(sends);
    expect(new Set(encoded.map((a) => a.body.memory.id)).size).toBe(1);
    expect(encoded.every((a) => a.status === 201 || a.status === 200)).toBe(true);

    const event = { type: "deploy.completed", text: "payments-api 4.2 deployed", source: "ci" };
    const ingested = await Promise.all(
      Array.from({ length: 8 }, () => onNewConnection(`${serve.url}/v1/memory/events`, { headers: { ...bearer(token), "idempotency-key": "deploy-42" }, body: event })),
    );
    expect(ingested.every((a) => a.status < 300)).toBe(true);
    expect(new Set(ingested.map((a) => a.body.eventId)).size).toBe(1);
    expect(ingested.filter((a) => !a.body.replayed)).toHaveLength(1);
  });

  it("moves each workflow from the state the last committed move left, whichever workers its events reach at once", async () => {
    const { token } = await newToken(await owner());
    const subjects = ["INC-W1", "INC-W2", "INC-W3"];
    const sends = subjects.flatMap((subject) =>
      Array.from({ length: 8 }, (_, i) => {
        const type = i % 2 === 0 ? "incident.opened" : "incident.resolved";
        return onNewConnection(`${serve.url}/v1/memory/events`, { headers: bearer(token), body: { type, text: `${type} ${i} ${subject}`, source: "pd", subject } });
      }),
    );
    const answers = await Promise.all(sends);
    expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(201));
    const stored = await db.workflowState.findMany({ where: { subject: { in: subjects } } });
    for (const subject of subjects) {
      const changes: Array<{ from: string | null; to: string }> = answers.flatMap((a) => a.body.workflowChanges).filter((c: { subject: string }) => c.subject === subject);
      expect(changes).toHaveLength(8);
      // The moves chain (each from the state another left) exactly when only the first starts from none and every
      // state is left as often as it was reached, but the last one, which is stored.
      const final = stored.find((row) => row.subject === subject)!.state;
      expect(changes.filter((c) => c.from === null)).toHaveLength(1);
      for (const state of new Set(changes.map((c) => c.to))) {
        const reached = changes.filter((c) => c.to === state).length;
        const left = changes.filter((c) => c.from === state).length;
        expect({ state, surplus: reached - left }).toEqual({ state, surplus: state === final ? 1 : 0 });
      }
    }
  });

  it("lists a memory's history in the order its changes committed, however they raced on the workers", async () => {
    const { token } = await newToken(await owner(), "production", ["memory:read", "memory:write", "memory:control", "memory:delete"]);
    for (let round = 0; round < 3; round++) {
      const { body } = await onNewConnection(`${serve.url}/v1/memory`, { headers: bearer(token), body: { text: `Raced change ${round}.` } });
      const id: string = body.memory.id;
      const actions = ["suppress", "restore", "reinforce", "suppress", "restore", "reinforce", "suppress", "restore"];
      const answers = await Promise.all([
        ...actions.map((action) => onNewConnection(`${serve.url}/v1/memory/${id}/${action}`, { headers: bearer(token), body: {} })),
        onNewConnection(`${serve.url}/v1/memory/${id}`, { method: "DELETE", headers: bearer(token) }),
      ]);
      // Each change applies (200) or finds the state another left (409); the tombstone always applies.
      expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
      expect(answers.at(-1)!.status).toBe(200);
      const { body: provenance } = await onNewConnection(`${serve.url}/v1/memory/${id}/provenance`, { method: "GET", headers: bearer(token) });
      const history: Array<{ action: string; fromState: string | null; toState: string; at: string }> = provenance.history;
      expect(history[0]).toMatchObject({ action: "created", fromState: null });
      for (let i = 1; i < history.length; i++) {
        expect({ entry: i, from: history[i]!.fromState }).toEqual({ entry: i, from: history[i - 1]!.toState });
        expect(Date.parse(history[i]!.at)).toBeGreaterThan(Date.parse(history[i - 1]!.at));
      }
      expect(history.at(-1)!.toState).toBe(provenance.memory.state);
      expect(provenance.memory.updatedAt).toBe(history.at(-1)!.at);
    }
  });

  it("refuses a revoked token on every worker at once, though each had just verified it", async () => {
    const client = await owner();
    const { id, token } = await newToken(client);
    expect((await everyWorker(WORKERS * 2, "/v1/memory/retrieve", { headers: bearer(token), body: { query: "warm" } })).map((a) => a.status)).toEqual(
      Array(WORKERS * 2).fill(200),
    );
    expect((await client.delete(`/api/organization/tokens/${id}`)).status).toBe(200);
    const after = await everyWorker(WORKERS * 2, "/v1/memory/retrieve", { headers: bearer(token), body: { query: "warm" } });
    expect(after.map((a) => a.status)).toEqual(Array(WORKERS * 2).fill(401));
  });

  it("ranks a memory written through one worker with the same statistics on every worker at once", async () => {
    const { token } = await newToken(await owner());
    const retrieve = () => everyWorker(WORKERS * 2, "/v1/memory/retrieve", { headers: bearer(token), body: { query: "glacier survey" } });
    await onNewConnection(`${serve.url}/v1/memory`, { headers: bearer(token), body: { text: "The glacier survey runs every spring." } });
    await retrieve();
    const added = await onNewConnection(`${serve.url}/v1/memory`, { headers: bearer(token), body: { text: "Glacier survey data lives in the archive bucket." } });
    const rankings = (await retrieve()).map((a) => JSON.stringify(a.body.memories.map((m: { id: string; score: number }) => [m.id, m.score])));
    expect(new Set(rankings).size).toBe(1);
    expect(rankings[0]).toContain(added.body.memory.id);
  });

  it("never runs two reflection runs of one scope at once, whichever workers are asked", async () => {
    const client = await owner();
    const { token } = await newToken(client);
    for (let i = 0; i < 40; i++) await onNewConnection(`${serve.url}/v1/memory`, { headers: bearer(token), body: { text: `Reflection fodder ${i % 10} about the ledger.` } });
    const orgId = (await client.get("/api/organization")).body.organization.id;
    // Watch the runs table while the workers are asked to start runs all at once.
    let watching = true;
    let mostRunning = 0;
    const watcher = (async () => {
      while (watching) {
        mostRunning = Math.max(mostRunning, await db.reflectionRun.count({ where: { orgId, environment: "production", status: "running" } }));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const cookie = await client.jar.getCookieString(serve.url + "/api");
    const asked = await Promise.all(
      Array.from({ length: 6 }, () =>
        onNewConnection(`${serve.url}/api/memory/reflection/run`, { headers: { cookie, origin: serve.url }, body: { environment: "production" } }),
      ),
    );
    for (let tries = 0; tries < 400 && (await db.reflectionRun.count({ where: { orgId, status: "running" } })) > 0; tries++) await new Promise((r) => setTimeout(r, 50));
    watching = false;
    await watcher;
    for (const answer of asked) {
      if (answer.status !== 202) expect(answer.body).toMatchObject({ success: false, error: "run_in_progress" });
    }
    expect(asked.some((a) => a.status === 202)).toBe(true);
    expect(mostRunning).toBe(1);
    const runs = await db.reflectionRun.findMany({ where: { orgId, trigger: "person" } });
    expect(runs.map((run) => run.status)).toEqual(Array(asked.filter((a) => a.status === 202).length).fill("completed"));
  });
});

describe("engram serve with workers: shutdown and replacement", () => {
  it("replaces a worker that dies, and on SIGTERM finishes the requests in flight on every worker and exits 0", async () => {
    const database = await freshDatabase();
    const own = await startChatUpstream();
    const cluster = await startEngramServe(database, WORKERS, { ENGRAM_UPSTREAM_BASE_URL: own.baseUrl, ENGRAM_UPSTREAM_API_KEY: "sk", ENGRAM_UPSTREAM_MODEL: "m" });
    try {
      const [victim] = cluster.workerPids();
      process.kill(victim!, "SIGKILL");
      const listeningWorkers = () => cluster.output().match(/"msg":"worker listening"/g)?.length ?? 0;
      for (let tries = 0; tries < 400 && listeningWorkers() < WORKERS + 1; tries++) await new Promise((r) => setTimeout(r, 50));
      const pids = cluster.workerPids();
      expect(pids).toHaveLength(WORKERS);
      expect(pids).not.toContain(victim);

      // A slow answer from the model: requests on two connections are in flight on both workers when SIGTERM comes.
      own.behave(answer(["still ", "answered"], { delayMs: 600 }));
      const chat = () =>
        onNewConnection(`${cluster.url}/v1/chat/completions`, {
          headers: { ...bearer(cluster.token), "x-engram-memory": "off" },
          body: { model: DEFAULT_MODEL_ID, messages: [{ role: "user", content: "hello" }] },
        });
      const inFlight = Array.from({ length: WORKERS }, chat);
      await new Promise((r) => setTimeout(r, 200));
      const code = await cluster.stop("SIGTERM");
      const answers = await Promise.all(inFlight);
      expect(answers.map((a) => a.status)).toEqual(Array(WORKERS).fill(200));
      expect(code).toBe(0);
      expect(pids.filter(isAlive)).toEqual([]);
    } finally {
      await cluster.stop("SIGKILL");
      await own.close();
    }
  }, 60_000);

  it("starts a replacement again, after a longer pause, until the database lets one start", async () => {
    const outage = await outageOf(await freshDatabase());
    const cluster = await startEngramServe(outage.database, WORKERS);
    const logged = (msg: string) => cluster.output().match(new RegExp(`[^\\n]*"msg":"${msg}"[^\\n]*`, "g")) ?? [];
    try {
      await outage.begin();
      const [victim] = cluster.workerPids();
      process.kill(victim!, "SIGKILL");
      const failed = () => logged("a replacement worker failed to start; trying again");
      for (let tries = 0; tries < 600 && failed().length === 0; tries++) await new Promise((r) => setTimeout(r, 50));
      expect(failed().length).toBeGreaterThan(0);
      expect(failed()[0]).toContain('"retryInMs":2000');

      await outage.end();
      for (let tries = 0; tries < 600 && logged("worker listening").length < WORKERS + 1; tries++) await new Promise((r) => setTimeout(r, 50));
      expect(logged("worker listening")).toHaveLength(WORKERS + 1);
      // Had this test been slow to end the outage, more attempts failed meanwhile, each after twice the pause.
      const pauses = failed().map((line) => Number(/"retryInMs":(\d+)/.exec(line)![1]));
      expect(pauses).toEqual(pauses.map((_, i) => 2000 * 2 ** i));
      const pids = cluster.workerPids();
      expect(pids).toHaveLength(WORKERS);
      expect(pids).not.toContain(victim);
      const answers = await Promise.all(Array.from({ length: WORKERS * 2 }, () => onNewConnection(`${cluster.url}/v1/health`)));
      expect(answers.map((a) => a.status)).toEqual(Array(WORKERS * 2).fill(200));
    } finally {
      await outage.end();
      await cluster.stop("SIGKILL");
    }
  }, 90_000);

  it("leaves memories stored before it started to one embeddings sweep, in the primary alone", async () => {
    const database = await freshDatabase();
    const seeding = await startServerOn(database);
    const org = await seeding.services.organizations.create({ name: "seeded" });
    const { token } = await seeding.services.tokens.create({ orgId: org.id, name: "t", scopes: ["memory:write"], environment: "production" });
    const caller = await seeding.services.tokens.authenticate(token, "seed");
    const texts = Array.from({ length: 30 }, (_, i) => `Seeded memory ${i} about the harbour.`);
    for (const text of texts) await seeding.services.memories.encode(caller, null, { text, memoryKind: "fact", confidence: 0.8 }, undefined);
    await seeding.close();

    const embeddings = await startEmbeddingsServer();
    const cluster = await startEngramServe(database, WORKERS, {
      ENGRAM_EMBEDDINGS_URL: embeddings.baseUrl,
      ENGRAM_EMBEDDINGS_API_KEY: "sk",
      ENGRAM_EMBEDDINGS_MODEL: "concepts-1",
    });
    try {
      const embeddedTexts = () => embeddings.requests.flatMap((r) => r.input).filter((input) => input.includes("Seeded memory"));
      for (let tries = 0; tries < 200 && embeddedTexts().length < texts.length; tries++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500));
      expect(embeddedTexts()).toHaveLength(texts.length);
      expect(new Set(embeddedTexts()).size).toBe(texts.length);
    } finally {
      await cluster.stop();
      await embeddings.close();
    }
  }, 60_000);
});

/**
 * The database, and a way to make it refuse a new process's start for a while: on Postgres a relay in front of the
 * server, taken down; on SQLite the write lock, held past the wait of the migration runner that every start runs.
 */
async function outageOf(database: DatabaseConfig) {
  let end = async () => {};
  const ended = () => {
    const ending = end;
    end = async () => {};
    return ending();
  };
  if (database.provider === "postgres") {
    const direct = new URL(database.url);
    const relay = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const viaRelay = new URL(database.url);
    viaRelay.port = String(relay.port);
    return {
      database: { ...database, url: viaRelay.toString() },
      async begin() {
        await relay.down();
        end = () => relay.up();
      },
      end: ended,
    };
  }
  return {
    database,
    async begin() {
      const locker = new Database(database.file);
      locker.exec("BEGIN EXCLUSIVE");
      end = async () => {
        locker.exec("COMMIT");
        locker.close();
      };
    },
    end: ended,
  };
}

/** The processes started with `mark` in their environment, wherever they are in the process tree. */
function processesMarked(mark: string): string[] {
  return readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").includes(mark);
    } catch {
      return false; // gone meanwhile, or not ours to read
    }
  });
}

/** Starts `engram serve` where it cannot listen; resolves with what it printed once it and its workers are gone. */
async function refusedStart(workers: number, env: Record<string, string>): Promise<string> {
  const mark = `port-refused-${workers}-${process.pid}-${Date.now()}`;
  const failure: Error = await startEngramServe(await freshDatabase(), workers, { ...env, ENGRAM_TEST_MARK: mark }).then(
    () => expect.unreachable("engram serve started where it cannot listen"),
    (error: Error) => error,
  );
  expect(failure.message).toMatch(/^engram serve exited with 2:/);
  // The primary is gone; its workers must not outlive it (they may take a moment to end after it).
  for (let tries = 0; tries < 100 && processesMarked(mark).length > 0; tries++) await new Promise((r) => setTimeout(r, 50));
  expect(processesMarked(mark)).toEqual([]);
  return failure.message.slice(failure.message.indexOf("\n") + 1).trim();
}

describe("engram serve where it cannot listen", () => {
  it.each([1, WORKERS])("with %i worker(s), on a port another process holds, says so in one line and exits 2, leaving no process behind", async (workers) => {
    const holder = createServer().listen(0, "127.0.0.1");
    await once(holder, "listening");
    const { port } = holder.address() as AddressInfo;
    try {
      expect(await refusedStart(workers, { PORT: String(port) })).toBe(
        `engram: 127.0.0.1:${port} is in use by another process: stop that process, or set PORT to a free port.`,
      );
    } finally {
      holder.close();
    }
  }, 60_000);

  it.each([1, WORKERS])("with %i worker(s), on an address not of this machine, says so in one line and exits 2", async (workers) => {
    // Reserved for documentation (RFC 5737): no machine has it.
    expect(await refusedStart(workers, { HOST: "192.0.2.1" })).toBe(
      "engram: 192.0.2.1:0: HOST is not an address of this machine; set it to one (127.0.0.1 for this machine alone, 0.0.0.0 for every interface).",
    );
  }, 60_000);

  it.each([1, WORKERS])("with %i worker(s), on a HOST that can be no address (a name longer than names may be), says so in one line and exits 2", async (workers) => {
    const host = "a".repeat(300);
    expect(await refusedStart(workers, { HOST: host })).toBe(
      `engram: ${host}:0: HOST is not an address of this machine; set it to one (127.0.0.1 for this machine alone, 0.0.0.0 for every interface).`,
    );
  }, 60_000);

  it.each([1, WORKERS])("with %i worker(s), on a HOST name nothing resolves, says so in one line and exits 2", async (workers) => {
    // Reserved never to resolve (RFC 6761); a name service that does not answer at all is told apart.
    const told = await refusedStart(workers, { HOST: "engram-test.invalid" });
    expect([
      "engram: HOST=engram-test.invalid cannot be resolved to an address; set HOST to an address (127.0.0.1 for this machine alone, 0.0.0.0 for every interface) or a name this machine resolves.",
      "engram: HOST=engram-test.invalid could not be resolved (the name service did not answer): try again, or set HOST to an address.",
    ]).toContain(told);
  }, 60_000);
});
