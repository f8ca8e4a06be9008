import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "@engram/test-support";
import { openStore } from "../src/db/store";
import type { Caller } from "../src/domain/access/caller";
import { AppError } from "../src/domain/kernel/errors";
import type { Store } from "../src/domain/store";
import { type KeyedSubmission, requestKeys, writeIdempotentBatch } from "../src/domain/writes/idempotent-batch";

/**
 * How the idempotent writer reaches the key ledger, on the real store: a lone keyed write claims its key
 * without reading it first (one round trip), and only a claim that fails makes it read the stored answer.
 */
let store: Store;
let keyReads = 0;
let counted: Store;
beforeAll(async () => {
  store = await openStore(await freshDatabase());
  counted = {
    ...store,
    idempotency: {
      ...store.idempotency,
      findMany: (...args) => {
        keyReads++;
        return store.idempotency.findMany(...args);
      },
    },
  };
});
afterAll(() => store?.close());

const newCaller = async (): Promise<Caller> => ({
  orgId: (await store.organizations.create({ name: "batch", plan: "free", founderWorkspace: false, environmentsEnabled: true })).id,
  tokenId: "tok_batch",
  tokenName: "batch",
  scopes: ["memory:write"],
  environment: "production",
  allowedAgents: null,
  writeMode: "direct",
  plan: "free",
  requestId: "req_batch",
});

/** Each writer's answer names its request; its one row is its agent, so what a batch stored can be counted. */
function write(batch: KeyedSubmission[]) {
  return writeIdempotentBatch(counted, batch, {
    ledger: requestKeys(counted, "test.write"),
    clock: () => new Date(),
    decide: async (writers) => ({
      decisions: writers.map(({ caller: { orgId }, hash }) => ({
        status: 201,
        body: { wrote: hash },
        write: (batch) => batch.ensureAgents([{ orgId, slug: hash }], new Date()),
      })),
    }),
  });
}

const agentsOf = async (orgId: string) => (await store.agents.list(orgId, { after: null, limit: 1_000 })).map((agent) => agent.slug).sort();

describe("an idempotent write", () => {
  it("claims a lone request's key without reading it, and reads it only when the claim fails", async () => {
    const who = await newCaller();
    keyReads = 0;
    expect(await write([{ caller: who, key: "k1", hash: "first" }])).toEqual([{ status: 201, body: { wrote: "first" }, replayed: false }]);
    expect(keyReads).toBe(0);

    // The retry's claim fails, rolling back the rows it decided; its read finds the first answer to repeat.
    expect(await write([{ caller: who, key: "k1", hash: "first" }])).toEqual([{ status: 201, body: { wrote: "first" }, replayed: true }]);
    expect(keyReads).toBe(1);
    const reused = await write([{ caller: who, key: "k1", hash: "another" }]);
    expect(reused[0]).toBeInstanceOf(AppError);
    expect((reused[0] as AppError).code).toBe("idempotency_key_reused");
    // The same statement as the failed claims (on Postgres prepared once per connection) serves the next key.
    expect(await write([{ caller: who, key: "k2", hash: "second" }])).toEqual([{ status: 201, body: { wrote: "second" }, replayed: false }]);
    expect(keyReads).toBe(2);
    expect(await agentsOf(who.orgId)).toEqual(["first", "second"]);
  });

  it("reads the keys of a batch of several before deciding, and always writes a request without a key", async () => {
    const who = await newCaller();
    keyReads = 0;
    const first = await write([
      { caller: who, key: "a", hash: "one" },
      { caller: who, key: "b", hash: "two" },
    ]);
    expect(first.map((result) => !(result instanceof Error) && result.replayed)).toEqual([false, false]);
    expect(keyReads).toBe(1);
    const again = await write([
      { caller: who, key: "a", hash: "one" },
      { caller: who, key: null, hash: "three" },
    ]);
    expect(again).toEqual([
      { status: 201, body: { wrote: "one" }, replayed: true },
      { status: 201, body: { wrote: "three" }, replayed: false },
    ]);
    expect(keyReads).toBe(2);
    expect(await agentsOf(who.orgId)).toEqual(["one", "three", "two"]);
  });
});
