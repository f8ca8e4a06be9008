import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, type SessionClient, type SessionResponse, startTestServer, type TestServer } from "@engram/test-support";
import { expectApiFailure } from "./sessions-support";

/**
 * The console's memory explorer and developer-event views through the signed-in application: search with the
 * real retrieval engine or a filtered list, a memory's provenance anywhere in the organization, state changes
 * by owners and admins through the same rules and history as tokens, events, workflow states, agents,
 * candidates with their events, and the per-day event count of the metrics trend.
 */

const DAY = 86_400_000;
/** Moves the server's clock (for the per-day counts); zero is the real time. */
let clockOffset = 0;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off", now: () => new Date(Date.now() + clockOffset) });
});
afterAll(() => server?.stop());

type Person = SessionClient & { email: string };

interface Org {
  orgId: string;
  owner: Person;
  /** All memory scopes, production. */
  token: string;
  /** All memory scopes, test environment. */
  testToken: string;
}

async function newOrg(plan: "free" | "spark" = "free"): Promise<Org> {
  const orgId = await server.newOrg({ plan });
  return { orgId, owner: await server.signedIn(orgId, "owner"), token: await server.newToken(orgId), testToken: await server.newToken(orgId, { environment: "test" }) };
}

function expectOk(res: SessionResponse): any {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** A word no other memory holds, so searches find only this test's memories. */
const word = () => `zq${randomUUID().replace(/-/g, "").slice(0, 10)}`;

interface EncodeOptions {
  agent?: string;
  subject?: string;
  memoryKind?: string;
}

async function encode(token: string, text: string, { agent, ...fields }: EncodeOptions = {}): Promise<string> {
  const path = agent ? `/v1/memory/agents/${agent}` : "/v1/memory";
  const res = await rawRequest(server.url, path, { token, body: JSON.stringify({ text, ...fields }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.memory.id;
}

async function sendEvent(token: string, event: Record<string, unknown>): Promise<any> {
  const res = await rawRequest(server.url, "/v1/memory/events", { token, body: JSON.stringify(event) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function v1(token: string, path: string, body?: unknown, method = "POST"): Promise<any> {
  const res = await rawRequest(server.url, path, { method, token, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const retrieveIds = async (token: string, query: string): Promise<string[]> =>
  (await v1(token, "/v1/memory/retrieve", { query, limit: 100 })).memories.map((m: { id: string }) => m.id);

const search = (person: SessionClient, query: Record<string, string | number>) =>
  person.get(`/api/memory/search?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`);
const ids = (body: { memories: Array<{ id: string }> }) => body.memories.map((m) => m.id);

const stored = (id: string) => server.db.memory.findUniqueOrThrow({ where: { id } });
const historyCount = (memoryId: string) => server.db.memoryHistory.count({ where: { memoryId } });

/** Every page of a list, following nextCursor; fails on a repeated memory. */
async function allPages(person: SessionClient, query: Record<string, string | number>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const body = expectOk(await search(person, { ...query, ...(cursor ? { cursor } : {}) }));
    expect(body.ranked).toBe(false);
    seen.push(...ids(body));
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  expect(new Set(seen).size, "no memory twice").toBe(seen.length);
  return seen;
}

describe("search with q: the retrieval engine ranks", () => {
  it("answers durable memories ranked best first, each with its score, as /v1 retrieval does", async () => {
    const org = await newOrg();
    const topic = word();
    const best = await encode(org.token, `${topic} ${topic}: deploys of ${topic} need the release checklist.`, { subject: topic });
    const other = await encode(org.token, `The ${topic} team meets on Mondays about other things entirely.`);
    await encode(org.token, "Unrelated: lunch is at noon.");
    const body = expectOk(await search(org.owner, { q: topic }));
    expect(body).toMatchObject({ success: true, ranked: true, nextCursor: null });
    expect(ids(body)).toEqual([best, other]);
    expect(body.memories.every((m: { score: unknown }) => typeof m.score === "number" && m.score > 0)).toBe(true);
    expect(body.memories[0].score).toBeGreaterThan(body.memories[1].score);
    expect(ids(body)).toEqual(await retrieveIds(org.token, topic));
    // Cut to the limit after ranking: the best stays.
    expect(ids(expectOk(await search(org.owner, { q: topic, limit: 1 })))).toEqual([best]);
  });

  it("narrows the ranked answer by kind, agent (exact owner), subject and source", async () => {
    const org = await newOrg("spark");
    const topic = word();
    const shared = await encode(org.token, `Shared ${topic} fact.`, { subject: "billing" });
    const decision = await encode(org.token, `We decided ${topic} ships weekly.`, { memoryKind: "decision" });
    const mine = await encode(org.token, `Agent-owned ${topic} note.`, { agent: "helper" });
    await encode(org.token, `Another agent's ${topic} note.`, { agent: "other-bot" });
    // A developer event's candidate, promoted: durable, with source developer_event.
    expect((await org.owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
    const { candidateIds } = await sendEvent(org.token, { type: "decision.recorded", text: `Decision: ${topic} moves to Postgres.`, subject: "db" });
    expectOk(await org.owner.post(`/api/memory/candidates/${candidateIds[0]}/promote`, {}));

    const found = (query: Record<string, string>) => search(org.owner, { q: topic, ...query }).then((res) => ids(expectOk(res)).sort());
    expect(await found({ kind: "decision" })).toEqual([decision, candidateIds[0]].sort());
    // The agent's own memories only, never the shared ones its scope also sees.
    expect(await found({ agent: "helper" })).toEqual([mine]);
    expect(await found({ subject: "billing" })).toEqual([shared]);
    expect(await found({ source: "developer_event" })).toEqual([candidateIds[0]]);
    expect(await found({ source: "api", kind: "decision" })).toEqual([decision]);
    expect(await found({ state: "durable", agent: "helper" })).toEqual([mine]);
    expect(await found({ agent: "nobody" })).toEqual([]);
  });

  it("refuses q with a state other than durable, and a cursor, with 400 invalid_parameter", async () => {
    const org = await newOrg();
    for (const state of ["suppressed", "candidate", "tombstoned"]) {
      expectApiFailure(await search(org.owner, { q: "deploys", state }), 400, "invalid_parameter", /^state: .*durable memories only/);
    }
    expectApiFailure(await search(org.owner, { q: "deploys", cursor: "abc" }), 400, "invalid_parameter", /^cursor: /);
  });

  it("never ranks a suppressed, candidate or tombstoned memory", async () => {
    const org = await newOrg();
    const topic = word();
    const kept = await encode(org.token, `Kept ${topic}.`);
    const suppressed = await encode(org.token, `Suppressed ${topic}.`);
    const tombstoned = await encode(org.token, `Tombstoned ${topic}.`);
    expectOk(await org.owner.post(`/api/memory/${suppressed}/suppress`, {}));
    expectOk(await org.owner.post(`/api/memory/${tombstoned}/tombstone`, {}));
    expect(ids(expectOk(await search(org.owner, { q: topic })))).toEqual([kept]);
  });
});

describe("search without q: a filtered list, newest first", () => {
  it("lists memories in every state, newest first, without scores, and by state when asked", async () => {
    const org = await newOrg();
    const a = await encode(org.token, "First written.");
    const b = await encode(org.token, "Second written.");
    const c = await encode(org.token, "Third written.");
    expectOk(await org.owner.post(`/api/memory/${b}/suppress`, { reason: "checking" }));
    expectOk(await org.owner.post(`/api/memory/${c}/tombstone`, {}));

    const body = expectOk(await search(org.owner, {}));
    expect(body).toMatchObject({ ranked: false, nextCursor: null });
    expect(body.memories.every((m: { score: unknown }) => m.score === null)).toBe(true);
    expect(ids(body)).toEqual(newestFirst(body.memories));
    expect(ids(body).sort()).toEqual([a, b, c].sort());
    expect(ids(expectOk(await search(org.owner, { state: "suppressed" })))).toEqual([b]);
    expect(ids(expectOk(await search(org.owner, { state: "tombstoned" })))).toEqual([c]);
    expect(ids(expectOk(await search(org.owner, { state: "durable" })))).toEqual([a]);
    expect(ids(expectOk(await search(org.owner, { state: "candidate" })))).toEqual([]);
  });

  it("narrows by kind, agent (exact owner), subject and source", async () => {
    const org = await newOrg("spark");
    const shared = await encode(org.token, "Shared fact.", { subject: "billing" });
    const decision = await encode(org.token, "A decision.", { memoryKind: "decision", subject: "billing" });
    const mine = await encode(org.token, "Agent-owned note.", { agent: "helper" });
    expectOk(await org.owner.post(`/api/memory/${mine}/suppress`, {}));
    expect((await org.owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
    const { candidateIds } = await sendEvent(org.token, { type: "incident.opened", text: "INC-7 opened: checkout errors.", subject: "INC-7" });

    const listed = async (query: Record<string, string>) => ids(expectOk(await search(org.owner, query))).sort();
    expect(await listed({ kind: "decision" })).toEqual([decision]);
    expect(await listed({ agent: "helper" })).toEqual([mine]);
    expect(await listed({ agent: "helper", state: "durable" })).toEqual([]);
    expect(await listed({ subject: "billing" })).toEqual([shared, decision].sort());
    expect(await listed({ subject: "billing", kind: "fact" })).toEqual([shared]);
    expect(await listed({ source: "developer_event" })).toEqual(candidateIds);
    expect(await listed({ source: "developer_event", state: "candidate", kind: "event", subject: "INC-7" })).toEqual(candidateIds);
    expect(await listed({ source: "api" })).toEqual([shared, decision, mine].sort());
  });

  it("pages through every memory exactly once, ties in time included, with and without filters", async () => {
    const org = await newOrg();
    // Written together, several share a creation time: the id breaks the tie.
    const written = await Promise.all(Array.from({ length: 13 }, (_, i) => encode(org.token, `Memory number ${i}.`, { memoryKind: i % 2 ? "fact" : "event" })));
    await encode(org.testToken, "In the test environment.");
    const pages = await allPages(org.owner, { limit: 3 });
    expect(pages.sort()).toEqual([...written].sort());
    const page = expectOk(await search(org.owner, { limit: 3 }));
    expect(page.memories).toHaveLength(3);
    expect(page.nextCursor).toEqual(expect.any(String));

    const events = await allPages(org.owner, { limit: 2, kind: "event" });
    expect(events.sort()).toEqual(written.filter((_, i) => i % 2 === 0).sort());
    // The whole list in one page is in the same order as the pages.
    const whole = expectOk(await search(org.owner, { limit: 100 }));
    expect(ids(whole)).toEqual(await allPages(org.owner, { limit: 4 }));
    expect(ids(whole)).toEqual(newestFirst(whole.memories));
  });

  it("refuses a cursor it did not hand out with 400 invalid_parameter naming cursor", async () => {
    const org = await newOrg();
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of ["abc", "!!", made(["yesterday", "mem_x"]), made({ a: 1 }), made(["2026-01-01T00:00:00.000Z", 5])]) {
      expectApiFailure(await search(org.owner, { cursor }), 400, "invalid_parameter", /^cursor: /);
    }
  });
});

describe("a memory's history", () => {
  it("is answered a page at a time, oldest first, as provenance answers it", async () => {
    const org = await newOrg();
    const id = await encode(org.token, `History of ${word()}`);
    for (let i = 0; i < 4; i++) expectOk(await org.owner.post(`/api/memory/${id}/reinforce`, { reason: `use ${i}` }));
    const whole = expectOk(await org.owner.get(`/api/memory/${id}`));
    expect(whole.history.map((entry: { reason: string | null }) => entry.reason)).toEqual([null, "use 0", "use 1", "use 2", "use 3"]);
    expect(whole.nextHistoryCursor).toBeNull();
    const first = expectOk(await org.owner.get(`/api/memory/${id}?historyLimit=2`));
    const second = expectOk(await org.owner.get(`/api/memory/${id}?historyLimit=3&historyCursor=${first.nextHistoryCursor}`));
    expect([...first.history, ...second.history]).toEqual(whole.history);
    expect(second.nextHistoryCursor).toBeNull();
    expect(second.memory).toEqual(whole.memory);
    expectApiFailure(await org.owner.get(`/api/memory/${id}?historyCursor=abc`), 400, "invalid_parameter", /^historyCursor: /);
  });
});

describe("environments and organizations", () => {
  it("keeps each environment to itself, in both modes", async () => {
    const org = await newOrg();
    const topic = word();
    const production = await encode(org.token, `Production ${topic}.`);
    const test = await encode(org.testToken, `Test ${topic}.`);
    expect(ids(expectOk(await search(org.owner, { q: topic })))).toEqual([production]);
    expect(ids(expectOk(await search(org.owner, { q: topic, environment: "production" })))).toEqual([production]);
    expect(ids(expectOk(await search(org.owner, { q: topic, environment: "test" })))).toEqual([test]);
    expect(ids(expectOk(await search(org.owner, {})))).toEqual([production]);
    expect(ids(expectOk(await search(org.owner, { environment: "test" })))).toEqual([test]);
    expect(ids(expectOk(await search(org.owner, { environment: "staging" })))).toEqual([]);
    // By id, a memory is found in any environment of the organization.
    expect(expectOk(await org.owner.get(`/api/memory/${test}`)).memory).toMatchObject({ id: test, environment: "test" });
  });

  it("never shows or changes another organization's memory: 404 memory_not_found", async () => {
    const theirs = await newOrg();
    const topic = word();
    const id = await encode(theirs.token, `Their ${topic}.`);
    const mine = await newOrg();
    const before = await stored(id);
    expect(ids(expectOk(await search(mine.owner, { q: topic })))).toEqual([]);
    expect(ids(expectOk(await search(mine.owner, {})))).toEqual([]);
    expectApiFailure(await mine.owner.get(`/api/memory/${id}`), 404, "memory_not_found");
    for (const verb of ["reinforce", "suppress", "restore", "tombstone"]) {
      expectApiFailure(await mine.owner.post(`/api/memory/${id}/${verb}`, { reason: "not mine" }), 404, "memory_not_found");
    }
    expectApiFailure(await mine.owner.get("/api/memory/mem_does_not_exist"), 404, "memory_not_found");
    expect(await stored(id)).toEqual(before);
    expect(await historyCount(id)).toBe(1);
  });
});

describe("a memory and its provenance", () => {
  it("answers what /v1 provenance answers, for every member", async () => {
    const org = await newOrg();
    const id = await encode(org.token, "Provenance is shown.", { agent: "helper", subject: "docs" });
    await v1(org.token, `/v1/memory/${id}/reinforce`, { reason: "used it" });
    const member = await server.signedIn(org.orgId, "member");
    const { success, ...provenance } = expectOk(await member.get(`/api/memory/${id}`));
    expect(success).toBe(true);
    expect(provenance).toEqual(await v1(org.token, `/v1/memory/agents/helper/${id}/provenance`, undefined, "GET"));
    expect(provenance.history.map((h: { action: string }) => h.action)).toEqual(["created", "reinforced"]);
  });

  it("shows the developer event a memory was made from", async () => {
    const org = await newOrg("spark");
    expect((await org.owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
    const { eventId, candidateIds } = await sendEvent(org.token, { type: "pr.merged", text: "PR 12 merged: faster builds.", source: "github", subject: "PR-12" });
    const { source } = expectOk(await org.owner.get(`/api/memory/${candidateIds[0]}`));
    expect(source).toMatchObject({ kind: "developer_event", event: { id: eventId, type: "pr.merged", source: "github", subject: "PR-12" } });
  });
});

describe("changing a memory's state", () => {
  it("dates a reinforcement's change by the server's clock, as the use it records", async () => {
    const org = await newOrg();
    const id = await encode(org.token, `Clocked ${word()}.`);
    const admin = await server.signedIn(org.orgId, "admin");
    let memory: { lastReinforcedAt: string; updatedAt: string };
    try {
      // Ahead by two hours, within the session's lifetime.
      clockOffset = DAY / 12;
      memory = expectOk(await admin.post(`/api/memory/${id}/reinforce`, { reason: "Used it" })).memory;
    } finally {
      clockOffset = 0;
    }
    expect(Date.parse(memory.lastReinforcedAt) - Date.now()).toBeGreaterThan(DAY / 24);
    expect(memory.updatedAt).toBe(memory.lastReinforcedAt);
  });

  it("dates a change after the memory's latest, though the server's clock went back, so its history stays in order", async () => {
    const org = await newOrg();
    const id = await encode(org.token, `Clocked back ${word()}.`);
    const admin = await server.signedIn(org.orgId, "admin");
    let reinforced: { lastReinforcedAt: string; updatedAt: string };
    let suppressed: { updatedAt: string };
    try {
      clockOffset = -2 * DAY;
      reinforced = expectOk(await admin.post(`/api/memory/${id}/reinforce`, { reason: "Used it" })).memory;
      suppressed = expectOk(await admin.post(`/api/memory/${id}/suppress`, { reason: "Wrong" })).memory;
    } finally {
      clockOffset = 0;
    }
    const { history } = await v1(org.token, `/v1/memory/${id}/provenance`, undefined, "GET");
    const times = history.map((entry: { at: string }) => Date.parse(entry.at));
    expect(history.map((entry: { action: string }) => entry.action)).toEqual(["created", "reinforced", "suppressed"]);
    expect(times).toEqual([times[0], times[0] + 1, times[0] + 2]);
    expect([reinforced.lastReinforcedAt, reinforced.updatedAt, suppressed.updatedAt]).toEqual([history[1].at, history[1].at, history[2].at]);
  });

  it("records each change with the person and the reason, seen through /v1 provenance", async () => {
    const org = await newOrg();
    const topic = word();
    const id = await encode(org.token, `Controlled ${topic}.`);
    const admin = await server.signedIn(org.orgId, "admin");

    const reinforced = expectOk(await admin.post(`/api/memory/${id}/reinforce`, { reason: "Confirmed in the retro" }));
    expect(reinforced.memory).toMatchObject({ id, state: "durable", reinforcementCount: 1 });
    expect(expectOk(await admin.post(`/api/memory/${id}/suppress`, { reason: "Under review" })).memory).toMatchObject({ id, state: "suppressed" });
    expect(await retrieveIds(org.token, topic)).toEqual([]);
    expect(expectOk(await org.owner.post(`/api/memory/${id}/restore`, { reason: "Reviewed" })).memory).toMatchObject({ id, state: "durable" });
    expect(await retrieveIds(org.token, topic)).toEqual([id]);
    expect(expectOk(await org.owner.post(`/api/memory/${id}/tombstone`, { reason: "Wrong" })).memory).toMatchObject({ id, state: "tombstoned" });
    expect(await retrieveIds(org.token, topic)).toEqual([]);

    const { history } = await v1(org.token, `/v1/memory/${id}/provenance`, undefined, "GET");
    const person = (email: string) => ({ actor: `user:${email}`, tokenId: null, requestId: expect.stringMatching(/^req_/) });
    expect(history.slice(1)).toEqual([
      { action: "reinforced", fromState: "durable", toState: "durable", reason: "Confirmed in the retro", ...person(admin.email), at: expect.any(String) },
      { action: "suppressed", fromState: "durable", toState: "suppressed", reason: "Under review", ...person(admin.email), at: expect.any(String) },
      { action: "restored", fromState: "suppressed", toState: "durable", reason: "Reviewed", ...person(org.owner.email), at: expect.any(String) },
      { action: "tombstoned", fromState: "durable", toState: "tombstoned", reason: "Wrong", ...person(org.owner.email), at: expect.any(String) },
    ]);
  });

  it("answers the tombstone again to a repeated tombstone, writing nothing; other invalid changes are 409", async () => {
    const org = await newOrg();
    const id = await encode(org.token, "Tombstoned twice.");
    const durable = await encode(org.token, "Still durable.");
    expectApiFailure(await org.owner.post(`/api/memory/${durable}/restore`, {}), 409, "invalid_state_transition");
    expectOk(await org.owner.post(`/api/memory/${id}/tombstone`, {}));
    const before = await stored(id);
    expect(expectOk(await org.owner.post(`/api/memory/${id}/tombstone`, { reason: "again" })).memory).toMatchObject({ id, state: "tombstoned" });
    expectApiFailure(await org.owner.post(`/api/memory/${id}/suppress`, {}), 409, "invalid_state_transition");
    expectApiFailure(await org.owner.post(`/api/memory/${id}/restore`, {}), 409, "invalid_state_transition");
    expect(await stored(id)).toEqual(before);
    expect(await historyCount(id)).toBe(2);
    expect(await historyCount(durable)).toBe(1);
  });

  it("changes a memory of any environment and agent of the organization", async () => {
    const org = await newOrg();
    const id = await encode(org.testToken, "A test-environment agent's memory.", { agent: "tester" });
    expect(expectOk(await org.owner.post(`/api/memory/${id}/suppress`, {})).memory).toMatchObject({ id, state: "suppressed", environment: "test", agent: "tester" });
  });

  it("is for owners and admins: a member gets 403 permission_denied and changes nothing, but reads", async () => {
    const org = await newOrg();
    const id = await encode(org.token, "Members read.");
    const member = await server.signedIn(org.orgId, "member");
    const before = await stored(id);
    for (const verb of ["reinforce", "suppress", "restore", "tombstone"]) {
      expectApiFailure(await member.post(`/api/memory/${id}/${verb}`, { reason: "member" }), 403, "permission_denied");
    }
    expect(await stored(id)).toEqual(before);
    expect(await historyCount(id)).toBe(1);
    expect(ids(expectOk(await search(member, {})))).toEqual([id]);
    expect(expectOk(await member.get(`/api/memory/${id}`)).memory.id).toBe(id);
    expectOk(await member.get("/api/memory/events"));
    expectOk(await member.get("/api/memory/workflows"));
    expectOk(await member.get("/api/organization/agents"));
  });

  it("lets exactly one of two concurrent suppressions win, with one history row", async () => {
    const org = await newOrg();
    const admin = await server.signedIn(org.orgId, "admin");
    for (let round = 0; round < 4; round++) {
      const id = await encode(org.token, `Contested memory ${round}.`);
      const answers = await Promise.all([org.owner.post(`/api/memory/${id}/suppress`, { reason: "owner" }), admin.post(`/api/memory/${id}/suppress`, { reason: "admin" })]);
      const winners = answers.filter((res) => res.status === 200);
      expect(winners, JSON.stringify(answers.map((res) => res.body))).toHaveLength(1);
      expectApiFailure(answers.find((res) => res.status !== 200)!, 409, "invalid_state_transition");
      expect((await stored(id)).state).toBe("suppressed");
      expect(await server.db.memoryHistory.count({ where: { memoryId: id, action: "suppressed" } })).toBe(1);
    }
  });

  it("refuses an empty, long or unknown reason field with 400, changing nothing", async () => {
    const org = await newOrg();
    const id = await encode(org.token, "Reasons are checked.");
    expectApiFailure(await org.owner.post(`/api/memory/${id}/suppress`, { reason: "  " }), 400, "invalid_parameter");
    expectApiFailure(await org.owner.post(`/api/memory/${id}/suppress`, { reason: "x".repeat(1001) }), 400, "invalid_parameter");
    expectApiFailure(await org.owner.post(`/api/memory/${id}/suppress`, { actor: "someone else" }), 400, "unknown_parameter");
    expect((await stored(id)).state).toBe("durable");
  });
});

describe("developer events and workflows", () => {
  it("lists the environment's events newest first, by type, a page at a time", async () => {
    const org = await newOrg();
    const sent: string[] = [];
    for (const [i, type] of ["deploy.started", "deploy.completed", "custom.thing", "deploy.completed", "incident.opened"].entries()) {
      sent.push((await sendEvent(org.token, { type, text: `Event ${i}.`, subject: `svc-${i}`, source: "ci", metadata: { version: `1.${i}` } })).eventId);
    }
    await sendEvent(org.testToken, { type: "deploy.completed", text: "In the test environment." });

    const body = expectOk(await org.owner.get("/api/memory/events"));
    expect(body.events.map((e: { id: string }) => e.id)).toEqual([...sent].reverse());
    expect(body.nextCursor).toBeNull();
    expect(body.events[0]).toEqual({
      id: sent[4],
      environment: "production",
      type: "incident.opened",
      text: "Event 4.",
      source: "ci",
      subject: "svc-4",
      metadata: { version: "1.4" },
      idempotencyKey: expect.any(String),
      triageRule: "incident.opened",
      receivedAt: expect.any(String),
    });
    expect(body.events.find((e: { type: string }) => e.type === "custom.thing").triageRule).toBeNull();

    const deploys = expectOk(await org.owner.get("/api/memory/events?type=deploy.completed"));
    expect(deploys.events.map((e: { id: string }) => e.id)).toEqual([sent[3], sent[1]]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = expectOk(await org.owner.get(`/api/memory/events?limit=2${cursor ? `&cursor=${cursor}` : ""}`));
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events.map((e: { id: string }) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...sent].reverse());

    // A page of the largest events is what bounds the answer: 50 at most.
    expectApiFailure(await org.owner.get("/api/memory/events?limit=51"), 400, "invalid_parameter", /^limit: /);

    const inTest = expectOk(await org.owner.get("/api/memory/events?environment=test"));
    expect(inTest.events.map((e: { text: string }) => e.text)).toEqual(["In the test environment."]);
    expectApiFailure(await org.owner.get("/api/memory/events?cursor=abc"), 400, "invalid_parameter", /^cursor: /);
    // Another organization's events are never listed.
    expect(expectOk(await (await newOrg()).owner.get("/api/memory/events")).events).toEqual([]);
  });

  it("shows the current state of incidents and deployments, by workflow when asked", async () => {
    const org = await newOrg();
    await sendEvent(org.token, { type: "incident.opened", text: "INC-9 opened.", subject: "INC-9", metadata: { severity: "sev2" } });
    const resolved = await sendEvent(org.token, { type: "incident.resolved", text: "INC-9 resolved.", subject: "INC-9" });
    const deployed = await sendEvent(org.token, { type: "deploy.completed", text: "Payments 2.1 out in eu.", subject: "payments", metadata: { environment: "eu", version: "2.1" } });
    await sendEvent(org.testToken, { type: "incident.opened", text: "Test incident.", subject: "INC-T" });

    const { workflows } = expectOk(await org.owner.get("/api/memory/workflows"));
    expect(workflows).toEqual([
      { workflow: "deployment", subject: "payments", track: "eu", state: "deployed", details: { version: "2.1" }, lastEventId: deployed.eventId, updatedAt: expect.any(String) },
      { workflow: "incident", subject: "INC-9", track: "", state: "resolved", details: {}, lastEventId: resolved.eventId, updatedAt: expect.any(String) },
    ]);
    // Most recently changed first, and never more than the limit.
    expect(expectOk(await org.owner.get("/api/memory/workflows?limit=1")).workflows.map((w: { subject: string }) => w.subject)).toEqual(["payments"]);
    expectApiFailure(await org.owner.get("/api/memory/workflows?limit=101"), 400, "invalid_parameter", /limit/);
    expect(expectOk(await org.owner.get("/api/memory/workflows?workflow=incident")).workflows.map((w: { subject: string }) => w.subject)).toEqual(["INC-9"]);
    expect(expectOk(await org.owner.get("/api/memory/workflows?workflow=ci")).workflows).toEqual([]);
    expect(expectOk(await org.owner.get("/api/memory/workflows?environment=test")).workflows.map((w: { subject: string }) => w.subject)).toEqual(["INC-T"]);
  });
});

describe("agents and candidates", () => {
  it("lists the organization's agents by slug", async () => {
    const org = await newOrg();
    await encode(org.token, "Zeta's.", { agent: "zeta" });
    await encode(org.testToken, "Alpha's, in test.", { agent: "alpha" });
    await encode(org.token, "Alpha's again.", { agent: "alpha" });
    await encode((await newOrg()).token, "Elsewhere.", { agent: "beta" });
    const { agents } = expectOk(await (await server.signedIn(org.orgId, "member")).get("/api/organization/agents"));
    expect(agents).toEqual([
      { slug: "alpha", createdAt: expect.any(String) },
      { slug: "zeta", createdAt: expect.any(String) },
    ]);
  });

  it("pages the agents by slug, each page starting after the last slug of the one before", async () => {
    const org = await newOrg();
    const slugs = ["a-1", "a-2", "b", "c-9", "z"];
    for (const slug of [...slugs].reverse()) await encode(org.token, `For ${slug}.`, { agent: slug });
    const member = await server.signedIn(org.orgId, "member");

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: any = expectOk(await member.get(`/api/organization/agents?limit=2${cursor ? `&cursor=${cursor}` : ""}`));
      pages.push(page.agents.map((agent: { slug: string }) => agent.slug));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toEqual([["a-1", "a-2"], ["b", "c-9"], ["z"]]);
    // Exactly a page's worth leaves no next page; a slug between agents starts after it.
    expect(expectOk(await member.get("/api/organization/agents?limit=5")).nextCursor).toBeNull();
    expect(expectOk(await member.get("/api/organization/agents?cursor=b-0")).agents.map((agent: { slug: string }) => agent.slug)).toEqual(["c-9", "z"]);
    expect(expectOk(await member.get("/api/organization/agents?cursor=z"))).toEqual({ success: true, agents: [], nextCursor: null });

    for (const query of ["limit=0", "limit=501", "cursor=", "cursor=Not%20A%20Slug", "cursor=%00"]) {
      expectApiFailure(await member.get(`/api/organization/agents?${query}`), 400, "invalid_parameter", /^(limit|cursor): /);
    }
    expectApiFailure(await member.get("/api/organization/agents?after=b"), 400, "unknown_parameter");
  });

  it("lists the oldest 50 candidates", async () => {
    const org = await newOrg("spark");
    expect((await org.owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
    const written: string[] = [];
    for (let i = 0; i < 52; i++) written.push(await encode(org.token, `Candidate ${i}.`));
    const { candidates } = expectOk(await org.owner.get("/api/memory/candidates"));
    expect(candidates.map((candidate: { id: string }) => candidate.id)).toEqual(written.slice(0, 50));
  });

  it("shows each candidate with the developer event it came from, null when written directly", async () => {
    const org = await newOrg("spark");
    expect((await org.owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
    const direct = await encode(org.token, "Written as a candidate.");
    const fromEvents = [];
    for (const i of [1, 2, 3]) {
      fromEvents.push(await sendEvent(org.token, { type: "incident.resolved", text: `INC-${i} resolved.`, source: "pagerduty", subject: `INC-${i}` }));
    }
    const { candidates } = expectOk(await org.owner.get("/api/memory/candidates"));
    expect(candidates.find((c: { id: string }) => c.id === direct).event).toBeNull();
    for (const [i, sent] of fromEvents.entries()) {
      const candidate = candidates.find((c: { id: string }) => c.id === sent.candidateIds[0]);
      expect(candidate.event).toEqual({ id: sent.eventId, type: "incident.resolved", text: `INC-${i + 1} resolved.`, source: "pagerduty", subject: `INC-${i + 1}`, receivedAt: expect.any(String) });
    }
  });
});

describe("metrics trend", () => {
  it("counts the developer events received each day, in the asked environment only", async () => {
    const org = await newOrg();
    const dayOf = (offset: number) => new Date(Date.now() + offset).toISOString().slice(0, 10);
    try {
      clockOffset = -2 * DAY;
      await sendEvent(org.token, { type: "deploy.started", text: "Two days ago, one." });
      await sendEvent(org.token, { type: "custom.thing", text: "Two days ago, two." });
    } finally {
      clockOffset = 0;
    }
    await sendEvent(org.token, { type: "deploy.completed", text: "Today." });
    await sendEvent(org.testToken, { type: "deploy.completed", text: "Today, in test." });
    const trend = async (environment: string) =>
      expectOk(await org.owner.get(`/api/memory/reflection/metrics/trend?environment=${environment}&from=${dayOf(-2 * DAY)}&to=${dayOf(0)}`)).days.map(
        (day: { day: string; events: number }) => [day.day, day.events],
      );
    expect(await trend("production")).toEqual([
      [dayOf(-2 * DAY), 2],
      [dayOf(-DAY), 0],
      [dayOf(0), 1],
    ]);
    expect((await trend("test")).map(([, events]: [string, number]) => events)).toEqual([0, 0, 1]);
  });
});

/** The ids in the list's own order when sorted newest first (creation time, then id, descending). */
function newestFirst(memories: Array<{ id: string; createdAt: string }>): string[] {
  return [...memories].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? 1 : -1)).map((m) => m.id);
}
