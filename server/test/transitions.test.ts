import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ServerProcess, startServerProcess, startTestServer, type TestServer } from "@engram/test-support";

/**
 * Concurrent control requests on one memory, against one server process and against two (the second a real
 * OS process over the same database): every transition checks the state and changes it in one atomic step
 * with its history row, so of several identical ones exactly one succeeds, and a tombstone is final.
 */
describe.each([1, 2])("concurrent transitions with %i server process(es)", (processes) => {
  const CONCURRENT = 20;
  let server: TestServer;
  let other: ServerProcess | undefined;
  let urls: string[];

  beforeAll(async () => {
    server = await startTestServer();
    other = processes === 2 ? await startServerProcess(server.database) : undefined;
    urls = other ? [server.url, other.url] : [server.url];
  });
  afterAll(async () => {
    await other?.stop();
    await server?.stop();
  });

  /** One typed client per server process; request `i` goes to process `i mod n`. */
  async function tenant() {
    const { token } = await server.newTenant();
    const apis = urls.map((url) => apiClient(url, token));
    const api = apis[0]!;
    const spread = <T>(count: number, send: (client: typeof api, i: number) => Promise<T>) =>
      Promise.all(Array.from({ length: count }, (_, i) => send(apis[i % apis.length]!, i)));
    const encode = async (text: string) => {
      const res = await api.memory.encode({ body: { text } });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      return res.body.memory.id;
    };
    const history = async (id: string) => {
      const res = await api.memory.provenance({ params: { id } });
      if (res.status !== 200) throw new Error(`provenance answered ${res.status}`);
      return { state: res.body.memory.state, history: res.body.history };
    };
    return { api, spread, encode, history };
  }

  /** Each history entry starts where the one before it ended: no transition was lost or applied twice. */
  function expectUnbrokenChain(history: Array<{ fromState: string | null; toState: string }>) {
    history.slice(1).forEach((entry, i) => expect(entry.fromState, `entry ${i + 1}`).toBe(history[i]!.toState));
  }

  it.each([
    ["suppress", "durable", "suppressed"],
    ["restore", "suppressed", "durable"],
  ] as const)(`of ${CONCURRENT} concurrent %s requests exactly one succeeds and writes history`, async (action, from, to) => {
    const { api, spread, encode, history } = await tenant();
    const id = await encode(`Concurrent ${action} target.`);
    if (from === "suppressed") expect((await api.memory.suppress({ params: { id }, body: {} })).status).toBe(200);

    const results = await spread(CONCURRENT, (client) => client.memory[action]({ params: { id }, body: {} }));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(CONCURRENT - 1).fill(409)]);
    for (const res of results.filter((r) => r.status === 409)) {
      expect(res.body).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_state_transition" } });
    }
    const after = await history(id);
    expect(after.state).toBe(to);
    expect(after.history.filter((h) => h.toState === to && h.fromState === from)).toHaveLength(1);
    expectUnbrokenChain(after.history);
  });

  it(`${CONCURRENT} concurrent deletes all answer 200 tombstoned and write one history row`, async () => {
    const { spread, encode, history } = await tenant();
    const id = await encode("Concurrent delete target.");

    const results = await spread(CONCURRENT, (client) => client.memory.delete({ params: { id } }));
    expect(results.map((r) => r.status)).toEqual(Array(CONCURRENT).fill(200));
    for (const res of results) expect(res.body).toMatchObject({ memory: { id, state: "tombstoned" } });
    const after = await history(id);
    expect(after.history.map((h) => h.action)).toEqual(["created", "tombstoned"]);
  });

  it("a tombstone is final: a delete racing three restores of a suppressed memory always ends tombstoned", async () => {
    const { api, spread, encode, history } = await tenant();
    for (let trial = 0; trial < 10; trial++) {
      const text = `Tombstone race ${trial} zanzibar.`;
      const id = await encode(text);
      expect((await api.memory.suppress({ params: { id }, body: {} })).status).toBe(200);

      const [deleted, ...restores] = await spread(4, (client, i) =>
        i === 0 ? client.memory.delete({ params: { id } }) : client.memory.restore({ params: { id }, body: {} }),
      );
      expect(deleted!.status).toBe(200);
      expect(restores.map((r) => r.status).every((status) => status === 200 || status === 409)).toBe(true);
      const after = await history(id);
      expect(after.state, `trial ${trial}`).toBe("tombstoned");
      expect(after.history.at(-1)!.action, `trial ${trial}`).toBe("tombstoned");
      expect(after.history.filter((h) => h.action === "restored").length).toBeLessThanOrEqual(1);
      expectUnbrokenChain(after.history);
    }
    const found = await api.memory.retrieve({ body: { query: "tombstone race zanzibar" } });
    expect(found.body).toEqual({ memories: [] });
  });

  it(`${CONCURRENT} concurrent reinforces each count, in the count, the history and the recent use times`, async () => {
    const { api, spread, encode, history } = await tenant();
    const id = await encode("Concurrent reinforce target.");

    const results = await spread(CONCURRENT, (client) => client.memory.reinforce({ params: { id }, body: {} }));
    expect(results.map((r) => r.status)).toEqual(Array(CONCURRENT).fill(200));
    const counts = results.map((r) => (r.status === 200 ? r.body.memory.reinforcementCount : 0));
    // Each answer shows its own increment: the counts are 1..N, each once.
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: CONCURRENT }, (_, i) => i + 1));
    const after = await history(id);
    expect(after.history.filter((h) => h.action === "reinforced")).toHaveLength(CONCURRENT);

    // Fewer uses than are kept exactly: every one is stored (the encode plus each reinforce).
    const fresh = await encode("Concurrent recent uses target.");
    await spread(9, (client) => client.memory.reinforce({ params: { id: fresh }, body: {} }));
    const row = await server.db.memory.findUniqueOrThrow({ where: { id: fresh } });
    expect({ count: row.reinforcementCount, uses: (JSON.parse(row.recentUses) as string[]).length }).toEqual({ count: 9, uses: 10 });
    expect((await api.memory.retrieve({ body: { query: "concurrent recent uses target" } })).status).toBe(200);
  });
});
