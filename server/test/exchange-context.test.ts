import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, startTestServer, type TestServer } from "@engram/test-support";
import type { MemoryScope } from "../src/domain/memory/ports";

/**
 * Memories written moments apart are one exchange: a memory found relevant lends relevance to the ones
 * written around it (see docs/retrieval.md). The server's clock is the test's, so writing times are exact.
 */
const MINUTE = 60_000;
const t0 = new Date("2026-05-14T18:00:00Z").getTime();
let now = t0;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ now: () => new Date(now) });
});
afterAll(() => server?.stop());

async function tenant() {
  const { orgId, token } = await server.newTenant();
  const api = apiClient(server.url, token);
  /** Encodes at `minutes` after t0, in `agent`'s boundary or the shared memory. */
  const at = async (minutes: number, text: string, agent?: string) => {
    now = t0 + minutes * MINUTE;
    const res = agent ? await api.memory.encodeForAgent({ params: { agentSlug: agent }, body: { text } }) : await api.memory.encode({ body: { text } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.memory;
  };
  return { orgId, api, at };
}

const anchorOf = (memory: { id: string; agent: string | null; createdAt: string }) => ({ id: memory.id, agentSlug: memory.agent!, createdAt: new Date(memory.createdAt) });

describe("the memories written around an anchor", () => {
  it("are the anchor's agent's nearest on each side within the window, durable only", async () => {
    const { orgId, api, at } = await tenant();
    const before2 = await at(0, "turn zero", "chat-a");
    const before1 = await at(1, "turn one", "chat-a");
    await at(1.5, "another agent's turn", "chat-b");
    const anchor = await at(2, "the anchor turn", "chat-a");
    const shared = await at(2.5, "a shared note");
    const tombstoned = await at(2.7, "a turn taken back", "chat-a");
    const after2 = await at(3, "turn three", "chat-a");
    const after3 = await at(4, "turn four", "chat-a");
    await at(45, "a turn long after", "chat-a");
    expect((await api.memory.deleteForAgent({ params: { agentSlug: "chat-a", id: tombstoned.id } })).status).toBe(200);

    const scope: MemoryScope = { orgId, environment: "production", agentSlug: "chat-a" };
    const found = await server.services.store.memories.neighbours(scope, [anchorOf(anchor)], { ms: 30 * MINUTE, perSide: 2 });
    // The shared note is in the agent's boundary, but not one of its exchanges.
    expect(new Set(found.map((n) => n.candidate.id))).toEqual(new Set([before1.id, before2.id, after2.id, after3.id]));
    expect(found.every((n) => n.anchorId === anchor.id)).toBe(true);

    const narrow = await server.services.store.memories.neighbours(scope, [anchorOf(anchor)], { ms: 1.2 * MINUTE, perSide: 3 });
    expect(new Set(narrow.map((n) => n.candidate.id))).toEqual(new Set([before1.id, after2.id]));

  });

  it("are the agent's own however busy another agent is in between, and at most perSide a side", async () => {
    const { orgId, at } = await tenant();
    const before = await at(0, "a turn before the burst", "chat-a");
    for (let i = 0; i < 40; i++) await at(0.5 + i * 0.01, `an import line ${i}`, "importer");
    const anchor = await at(1, "the anchor turn", "chat-a");
    const after = [await at(1.5, "a turn after it", "chat-a"), await at(2, "the next turn", "chat-a"), await at(2.5, "and one more", "chat-a")];
    const scope: MemoryScope = { orgId, environment: "production", agentSlug: null };
    const found = await server.services.store.memories.neighbours(scope, [anchorOf(anchor)], { ms: 30 * MINUTE, perSide: 2 });
    expect(found.map((n) => n.candidate.id).sort()).toEqual([before.id, after[0]!.id, after[1]!.id].sort());
  });

  it("answers for many anchors in one read, each with its own", async () => {
    const { orgId, at } = await tenant();
    const a = await at(0, "first exchange, first turn", "chat");
    const b = await at(1, "first exchange, second turn", "chat");
    const c = await at(120, "second exchange, first turn", "chat");
    const d = await at(121, "second exchange, second turn", "chat");
    // Seen from the whole organization (no agent named), an agent's exchanges are still its own.
    const scope: MemoryScope = { orgId, environment: "production", agentSlug: null };
    const anchors = [a, c].map(anchorOf);
    const found = await server.services.store.memories.neighbours(scope, anchors, { ms: 30 * MINUTE, perSide: 2 });
    expect(found.map((n) => [n.anchorId, n.candidate.id]).sort()).toEqual([[a.id, b.id], [c.id, d.id]].sort());
  });

  it("gives a turn between two anchors to both, as one candidate", async () => {
    const { orgId, at } = await tenant();
    const first = await at(0, "the question", "chat");
    const between = await at(1, "the turn between", "chat");
    const last = await at(2, "the answer", "chat");
    const scope: MemoryScope = { orgId, environment: "production", agentSlug: null };
    const found = await server.services.store.memories.neighbours(scope, [first, last].map(anchorOf), { ms: 30 * MINUTE, perSide: 1 });
    expect(found.map((n) => [n.anchorId, n.candidate.id]).sort()).toEqual([[first.id, between.id], [last.id, between.id]].sort());
    const [one, other] = found.map((n) => n.candidate);
    expect(one).toBe(other);
    expect(one!.searchTerms.counts.size).toBeGreaterThan(0);
  });
});

describe("retrieval with the exchange around a match", () => {
  const noise = ["The knee brace was on sale at the pharmacy.", "Football on Sunday was cancelled for rain.", "Hospital parking costs went up again."];

  it("finds the turn that answers, though it names nothing the question asks about", async () => {
    const { api, at } = await tenant();
    for (const [i, text] of noise.entries()) await at(-600 + i, text, "chat");
    await at(0, "Jon: Honestly the nights are fine, it's my knee that's killing me.", "chat");
    await at(1, "Maria: Oh no, what happened to it?", "chat");
    // Shares no word with the question: only its neighbour can lend it relevance.
    const answer = await at(2, "Twisted it playing five-a-side last Sunday, went down awkwardly.", "chat");
    await at(3, "Maria: Ouch. Have you had anyone look at it?", "chat");

    now = t0 + 3 * 24 * 60 * MINUTE;
    const res = await api.memory.recallForAgent({ params: { agentSlug: "chat" }, body: { query: "how did Jon injure his knee?", limit: 5 } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expect(res.body.memories.map((m) => m.id)).toContain(answer.id);
    // It ranks below the turn that matched, whose relevance it borrows.
    expect(res.body.memories[0]!.text).toContain("my knee");
  });

  it("lends nothing to the organization's shared memories written beside a match", async () => {
    const { api, at } = await tenant();
    await at(0, "Payments deploy with make release after CI is green.");
    const beside = await at(0.1, "Lunch is at noon on the terrace.");
    now = t0 + 3 * 24 * 60 * MINUTE;
    const res = await api.memory.recall({ body: { query: "how do payments deploy?", limit: 10 } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expect(res.body.memories.map((m) => m.id)).not.toContain(beside.id);
  });

  it("lends nothing across a gap longer than the window", async () => {
    const { api, at } = await tenant();
    for (const [i, text] of noise.entries()) await at(-600 + i, text, "chat");
    await at(0, "Jon: Honestly the nights are fine, it's my knee that's killing me.", "chat");
    const later = await at(90, "Twisted it playing five-a-side last Sunday, went down awkwardly.", "chat");
    now = t0 + 3 * 24 * 60 * MINUTE;
    const res = await api.memory.recallForAgent({ params: { agentSlug: "chat" }, body: { query: "how did Jon injure his knee?", limit: 10 } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expect(res.body.memories.map((m) => m.id)).not.toContain(later.id);
  });
});
