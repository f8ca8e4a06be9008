import type { TEnvironment, TEncodeBody } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { reflectionContext } from "../../src/domain/reflection/context";
import { contradictionsProcess, SUPERSEDED_CONFIDENCE } from "../../src/domain/reflection/processes/contradictions";
import { MAX_THINGS_VERSIONED, namedVersions, reversalSignal, saysIncidentOpen, statedVersions } from "../../src/domain/reflection/processes/supersession-rules";
import { DEFAULT_REFLECTION_SETTINGS } from "../../src/domain/reflection/settings";

const DAY_MS = 24 * 60 * 60 * 1000;
let now = new Date("2026-03-02T09:00:00.000Z");
const later = (days = 1) => {
  now = new Date(now.getTime() + days * DAY_MS);
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ now: () => now });
});
afterAll(() => server?.stop());

/** One contradictions pass over an environment, inside a real run (as the runner does). */
async function runContradictions(orgId: string, environment: TEnvironment = "production") {
  const { store } = server.services;
  const scope = { orgId, environment };
  const run = await store.reflectionRuns.start(scope, { trigger: "person", triggeredBy: null, owner: "test", leaseUntil: new Date(now.getTime() + 60_000), at: now });
  const result = await contradictionsProcess.run(reflectionContext(store, { scope, runId: run!.id, settings: DEFAULT_REFLECTION_SETTINGS, clock: () => now }));
  await store.reflectionRuns.finish(run!.id, "test", "completed", now);
  return { ...result, runId: run!.id };
}

function writer(token: string) {
  const api = apiClient(server.url, token);
  return {
    api,
    async encode(body: TEncodeBody, agentSlug?: string) {
      const res = agentSlug ? await api.memory.encodeForAgent({ params: { agentSlug }, body }) : await api.memory.encode({ body });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      return res.body.memory.id;
    },
    async event(body: Record<string, unknown>) {
      const res = await rawRequest(server.url, "/v1/memory/events", { token, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`event answered ${res.status}`);
      return res.body.eventId as string;
    },
  };
}

const row = (id: string) => server.db.memory.findUniqueOrThrow({ where: { id } });

/** Everything reflection could have changed in an organization. */
async function snapshot(orgId: string) {
  return {
    memories: await server.db.memory.findMany({ where: { orgId }, orderBy: { id: "asc" }, select: { id: true, state: true, confidence: true, supersededBy: true, updatedAt: true } }),
    history: await server.db.memoryHistory.count({ where: { memory: { orgId } } }),
    events: await server.db.reflectionEvent.count({ where: { orgId } }),
  };
}

async function expectSuperseded(id: string, by: string, confidence: number) {
  expect(await row(id)).toMatchObject({ state: "durable", supersededBy: by, confidence });
}

async function expectUntouched(...ids: string[]) {
  for (const id of ids) expect(await row(id), id).toMatchObject({ state: "durable", supersededBy: null });
}

describe("contradictions: an incident later resolved", () => {
  it("demotes memories calling the incident open, links the resolving event, and leaves the rest", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const ongoing = await w.encode({ text: "INC-7 is ongoing: checkout latency degraded in eu-west.", subject: "INC-7", memoryKind: "event", confidence: 0.8 });
    const cause = await w.encode({ text: "INC-7 root cause is an expired TLS certificate on the edge proxy.", subject: "INC-7", memoryKind: "fact" });
    const otherIncident = await w.encode({ text: "INC-8 is ongoing: search is slow.", subject: "INC-8", memoryKind: "event" });
    const lowConfidence = await w.encode({ text: "Investigating INC-7 with the edge team.", subject: "inc-7", memoryKind: "observation", confidence: 0.2 });
    await w.event({ type: "incident.opened", text: "INC-8 opened: search slow", subject: "INC-8" });
    later();
    const resolved = await w.event({ type: "incident.resolved", text: "INC-7 resolved: certificate rotated.", subject: "inc-7 " });
    later();
    const afterwards = await w.encode({ text: "INC-7 review: we were investigating for two hours.", subject: "INC-7", memoryKind: "event" });

    const result = await runContradictions(orgId);
    expect(result).toMatchObject({ actions: 2 });
    await expectSuperseded(ongoing, resolved, SUPERSEDED_CONFIDENCE);
    // Already below the demoted confidence: kept as it was, never raised.
    await expectSuperseded(lowConfidence, resolved, 0.2);
    await expectUntouched(cause, otherIncident, afterwards);

    const provenance = await w.api.memory.provenance({ params: { id: ongoing } });
    expect(provenance.status).toBe(200);
    if (provenance.status !== 200) return;
    expect(provenance.body.memory).toMatchObject({ state: "durable", confidence: SUPERSEDED_CONFIDENCE });
    const last = provenance.body.history.at(-1)!;
    expect(last).toMatchObject({ action: "flagged", fromState: "durable", toState: "durable", actor: "reflection", requestId: result.runId });
    expect(last.reason).toContain(resolved);
    expect(last.reason).toContain("resolved");
    expect(last.reason).toContain('"ongoing"');
    const event = await server.db.reflectionEvent.findFirstOrThrow({ where: { memoryId: ongoing } });
    expect(event).toMatchObject({ process: "contradictions", action: "superseded", relatedId: resolved, runId: result.runId, reason: last.reason });
  });

  it("does not act on an incident that is open again, nor on a memory that also says it ended", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const reopened = await w.encode({ text: "INC-9 is ongoing.", subject: "INC-9", memoryKind: "event" });
    const told = await w.encode({ text: "INC-10 opened Monday and was resolved Tuesday.", subject: "INC-10", memoryKind: "event" });
    later();
    await w.event({ type: "incident.resolved", text: "INC-9 resolved", subject: "INC-9" });
    await w.event({ type: "incident.resolved", text: "INC-10 resolved", subject: "INC-10" });
    later();
    await w.event({ type: "incident.opened", text: "INC-9 opened again", subject: "INC-9" });
    expect(await runContradictions(orgId)).toMatchObject({ actions: 0 });
    await expectUntouched(reopened, told);
  });
});

describe("contradictions: a version later replaced", () => {
  it("supersedes each older version of the subject by the newest memory naming another one", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const first = await w.encode({ text: "payments-api runs v1.2.3 in production.", subject: "payments-api", memoryKind: "fact" });
    const runtime = await w.encode({ text: "payments-api requires node 18.2.0 on its hosts.", subject: "payments-api", memoryKind: "fact" });
    const pinned = await w.encode({ text: "We pin payments-api to v1.2.3 for the quarter.", subject: "payments-api", memoryKind: "decision" });
    const elsewhere = await w.encode({ text: "checkout-api runs v2.0.0.", subject: "checkout-api", memoryKind: "fact" });
    const agents = await w.encode({ text: "payments-api runs v1.0.0 in the sandbox.", subject: "payments-api", memoryKind: "fact" }, "triage");
    later();
    const second = await w.encode({ text: "Upgraded payments-api from v1.2.3 to v1.3.0.", subject: "Payments-API", memoryKind: "event" });
    later();
    const newest = await w.encode({ text: "payments-api is on 1.4.0 since Tuesday.", subject: "payments-api", memoryKind: "observation" });
    const restated = await w.encode({ text: "checkout-api v2.0 is healthy.", subject: "checkout-api", memoryKind: "observation" });

    expect(await runContradictions(orgId)).toMatchObject({ actions: 2 });
    await expectSuperseded(first, newest, SUPERSEDED_CONFIDENCE);
    await expectSuperseded(second, newest, SUPERSEDED_CONFIDENCE);
    // Another thing's version, another kind of statement, the same version restated, another agent's memory.
    await expectUntouched(runtime, pinned, elsewhere, restated, agents, newest);

    const event = await server.db.reflectionEvent.findFirstOrThrow({ where: { memoryId: first } });
    expect(event.reason).toContain("1.4.0");
    expect(event.reason).toContain("1.2.3");
    expect(JSON.parse(event.details!)).toMatchObject({ rule: "version_replaced", previousConfidence: 0.8, confidence: SUPERSEDED_CONFIDENCE });

    // Demoted, not hidden: it is still retrieved.
    const res = await w.api.memory.retrieve({ body: { query: "payments-api", limit: 10 } });
    expect(res.status).toBe(200);
    const ids = res.status === 200 ? res.body.memories.map((m) => m.id) : [];
    expect(ids).toContain(first);
  });

  it("a rollback to the old version makes the version in between the superseded one", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const original = await w.encode({ text: "ledger runs v3.1.0.", subject: "ledger", memoryKind: "fact" });
    later();
    const upgrade = await w.encode({ text: "ledger runs v3.2.0.", subject: "ledger", memoryKind: "fact" });
    later();
    const rollback = await w.encode({ text: "ledger runs v3.1.0 again.", subject: "ledger", memoryKind: "fact" });
    expect(await runContradictions(orgId)).toMatchObject({ actions: 1 });
    await expectSuperseded(upgrade, rollback, SUPERSEDED_CONFIDENCE);
    await expectUntouched(original, rollback);
  });
});

describe("contradictions: what is not a replacement", () => {
  it("a later memory naming a lower version without saying it went back is history, not the current version", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const current = await w.encode({ text: "ledger-svc runs v2.0 in production since March.", subject: "ledger-svc", memoryKind: "fact" });
    const history = await w.encode({ text: "ledger-svc v1.8 was deprecated last year and its docs archived.", subject: "ledger-svc", memoryKind: "fact" });
    expect(await runContradictions(orgId)).toMatchObject({ actions: 0 });
    await expectUntouched(current, history);
    // A newer version, written between the two, still replaces it: the history mention is passed over.
    const { orgId: otherOrg, token: otherToken } = await server.newTenant();
    const o = writer(otherToken);
    const old = await o.encode({ text: "ledger-svc runs v2.0 in production.", subject: "ledger-svc", memoryKind: "fact" });
    later();
    const upgrade = await o.encode({ text: "ledger-svc v2.1 is live.", subject: "ledger-svc", memoryKind: "fact" });
    later();
    const mention = await o.encode({ text: "ledger-svc v1.8 was deprecated last year.", subject: "ledger-svc", memoryKind: "fact" });
    expect(await runContradictions(otherOrg)).toMatchObject({ actions: 1 });
    await expectSuperseded(old, upgrade, SUPERSEDED_CONFIDENCE);
    await expectUntouched(upgrade, mention);
  });

  it("a reversal sharing one word with a decision is about something else; one saying little about the same thing reverses it", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const postgres = await w.encode({ text: "We use Postgres for the ledger database.", subject: "storage", memoryKind: "decision" });
    later();
    const mysql = await w.encode({ text: "We no longer use MySQL for the ledger reporting replica.", subject: "storage", memoryKind: "decision" });
    expect(await runContradictions(orgId)).toMatchObject({ actions: 0 });
    await expectUntouched(postgres, mysql);
    later();
    const dropped = await w.encode({ text: "We no longer use Postgres.", subject: "storage", memoryKind: "decision" });
    expect(await runContradictions(orgId)).toMatchObject({ actions: 1 });
    await expectSuperseded(postgres, dropped, SUPERSEDED_CONFIDENCE);
  });
});

describe("contradictions: undone by a person", () => {
  it("restoring a superseded memory clears the link, sets its confidence back, and the same replacement does not supersede it again", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const first = await w.encode({ text: "search-api runs v7.0.0.", subject: "search-api", memoryKind: "fact", confidence: 0.9 });
    const plain = await w.encode({ text: "search-api pages the search team.", subject: "search-api", memoryKind: "fact" });
    later();
    const second = await w.encode({ text: "search-api runs v7.1.0.", subject: "search-api", memoryKind: "fact" });
    expect(await runContradictions(orgId)).toMatchObject({ actions: 1 });
    await expectSuperseded(first, second, SUPERSEDED_CONFIDENCE);

    // Two people restore it at once: one does, the other finds nothing left to restore.
    const restores = await Promise.all([0, 1].map(() => w.api.memory.restore({ params: { id: first }, body: { reason: "7.1.0 was rolled out to staging only" } })));
    expect(restores.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(await row(first)).toMatchObject({ state: "durable", supersededBy: null, supersessionDismissedBy: second, confidence: 0.9 });
    const provenance = await w.api.memory.provenance({ params: { id: first } });
    const restoredEntries = provenance.status === 200 ? provenance.body.history.filter((entry) => entry.action === "restored") : [];
    expect(restoredEntries).toEqual([expect.objectContaining({ fromState: "durable", toState: "durable", reason: "7.1.0 was rolled out to staging only" })]);

    // Not a superseded memory: nothing to restore.
    const refused = await w.api.memory.restore({ params: { id: plain }, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: "invalid_state_transition" } });

    expect(await runContradictions(orgId)).toMatchObject({ actions: 0 });
    expect(await row(first)).toMatchObject({ supersededBy: null, confidence: 0.9 });
    later();
    const third = await w.encode({ text: "search-api runs v7.2.0.", subject: "search-api", memoryKind: "fact" });
    expect(await runContradictions(orgId)).toMatchObject({ actions: 2 });
    await expectSuperseded(first, third, SUPERSEDED_CONFIDENCE);
    await expectSuperseded(second, third, SUPERSEDED_CONFIDENCE);
  });
});

describe("contradictions: a decision later reversed", () => {
  it("supersedes a decision by the later decision that reverses it, and only what that one is about", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const storage = await w.encode({ text: "We store the ledger entries in Postgres.", subject: "ledger-db", memoryKind: "decision" });
    const backups = await w.encode({ text: "Ledger backups run nightly at 02:00.", subject: "ledger-db", memoryKind: "decision" });
    const fact = await w.encode({ text: "ledger-db entries live in Postgres.", subject: "ledger-db", memoryKind: "fact" });
    const billing = await w.encode({ text: "Billing stores invoices in Postgres.", subject: "billing", memoryKind: "decision" });
    later();
    const reversal = await w.encode({ text: "Switched from Postgres to CockroachDB for ledger entries.", subject: "LEDGER-DB", memoryKind: "decision" });
    const unrelated = await w.encode({ text: "We no longer page on-call for ledger warnings.", subject: "ledger-db", memoryKind: "decision" });
    later();
    const reReversal = await w.encode({ text: "Reverted: CockroachDB is rolled back, Postgres again.", subject: "ledger-db", memoryKind: "decision" });

    expect(await runContradictions(orgId)).toMatchObject({ actions: 2 });
    // Each decision points to the one that reversed it, so the links form the chain of what replaced what.
    await expectSuperseded(storage, reversal, SUPERSEDED_CONFIDENCE);
    await expectSuperseded(reversal, reReversal, SUPERSEDED_CONFIDENCE);
    await expectUntouched(backups, fact, billing, unrelated, reReversal);
    const event = await server.db.reflectionEvent.findFirstOrThrow({ where: { memoryId: storage } });
    expect(event.reason).toContain(reversal);
    expect(event.reason).toContain('"switched from"');
  });
});

describe("contradictions: runs", () => {
  it("a second run changes nothing; other environments and organizations are untouched", async () => {
    const { orgId, token } = await server.newTenant();
    const other = await server.newTenant();
    const writers = [token, await server.newToken(orgId, { environment: "test" }), other.token].map(writer);
    const older: string[] = [];
    for (const w of writers) older.push(await w.encode({ text: "search-api runs v5.0.0.", subject: "search-api", memoryKind: "fact" }));
    later();
    const newer: string[] = [];
    for (const w of writers) newer.push(await w.encode({ text: "search-api runs v5.1.0.", subject: "search-api", memoryKind: "fact" }));
    const otherBefore = await snapshot(other.orgId);

    const first = await runContradictions(orgId);
    expect(first).toMatchObject({ examined: 2, actions: 1 });
    await expectSuperseded(older[0]!, newer[0]!, SUPERSEDED_CONFIDENCE);
    // The same memories in Test and in another organization: not this run's to change.
    await expectUntouched(older[1]!, older[2]!, ...newer);
    expect(await snapshot(other.orgId)).toEqual(otherBefore);

    const afterFirst = await snapshot(orgId);
    later();
    expect(await runContradictions(orgId)).toMatchObject({ examined: 2, actions: 0 });
    expect(await snapshot(orgId)).toEqual(afterFirst);

    // The Test environment's own run finds its own contradiction.
    expect(await runContradictions(orgId, "test")).toMatchObject({ examined: 2, actions: 1 });
    await expectSuperseded(older[1]!, newer[1]!, SUPERSEDED_CONFIDENCE);
  });
});

describe("contradictions: across pages", () => {
  it("finds the replacement when it is pages after the memory it replaces", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const old = await w.encode({ text: "gateway runs v7.0.0.", subject: "gateway", memoryKind: "fact" });
    later();
    const FILLER = 510;
    for (let i = 0; i < FILLER; i += 30) {
      await Promise.all(Array.from({ length: Math.min(30, FILLER - i) }, (_, j) => w.encode({ text: `Note ${i + j} about the gateway dashboards.`, subject: "gateway" })));
    }
    later();
    const replacement = await w.encode({ text: "gateway runs v7.1.0.", subject: "gateway", memoryKind: "fact" });
    expect(await runContradictions(orgId)).toMatchObject({ examined: FILLER + 2, actions: 1 });
    await expectSuperseded(old, replacement, SUPERSEDED_CONFIDENCE);
  });
});

describe("contradictions: texts naming hundreds of versions", () => {
  it("compares only the first things each names, in time that grows with the memories, not with what they name", async () => {
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    /** About 600 distinct things, each with a version, in 8,000 characters: no other memory names them. */
    const release = (memory: number) => {
      const parts: string[] = [];
      for (let j = 0; parts.join(" ").length < 7_980; j++) parts.push(`q${memory.toString(36)}x${j.toString(36)} v1.${j}`);
      return parts.join(" ").slice(0, 8_000).replace(/\s\S*$/, "");
    };
    const MEMORIES = 100;
    const ids: string[] = [];
    for (let i = 0; i < MEMORIES; i++) {
      ids.push(await w.encode({ text: release(i), subject: "payments-api", memoryKind: "fact" }));
      later(0.01);
    }
    // The first memory's first thing, named again at a higher version.
    const replacement = await w.encode({ text: "Now q0x0 v1.5.0 runs.", subject: "payments-api", memoryKind: "fact" });

    const started = performance.now();
    const result = await runContradictions(orgId);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ examined: MEMORIES + 1, actions: 1 });
    await expectSuperseded(ids[0]!, replacement, SUPERSEDED_CONFIDENCE);
    // Comparing every thing named with every newer memory's took 14-18 s here; the margin is for a busy machine.
    expect(elapsed).toBeLessThan(5_000);
  }, 120_000);
});

describe("contradiction rules on text", () => {
  it("reads versions with what they are versions of", () => {
    expect(namedVersions("payments-api v1.2 then 1.3.0, node 18.2.0", "payments-api")).toEqual([
      { version: "1.2.0", label: null },
      { version: "1.3.0", label: null },
      { version: "18.2.0", label: "node" },
    ]);
    // Not versions: two parts without v, addresses, parts of words, dates with four parts.
    expect(namedVersions("took 1.5 seconds from 10.0.0.1 via node18.0.0 on 2026.03.02.1", null)).toEqual([]);
  });

  it("states the highest version of each thing named, for the first things named only", () => {
    expect(statedVersions(namedVersions("payments-api v1.2 then 1.3.0 and back to 1.2.5, node 18.2.0", "payments-api"))).toEqual(
      new Map([
        [null, "1.3.0"],
        ["node", "18.2.0"],
      ]),
    );
    const many = Array.from({ length: MAX_THINGS_VERSIONED + 5 }, (_, i) => `lib${i} v2.${i}`).join(", ");
    const stated = statedVersions(namedVersions(`${many}, lib0 v9.0`, "app"));
    expect([...stated.keys()]).toEqual(Array.from({ length: MAX_THINGS_VERSIONED }, (_, i) => `lib${i}`));
    expect(stated.get("lib0")).toBe("9.0.0");
  });

  it("reads reversals and open incidents, not look-alikes", () => {
    expect(reversalSignal("We switched  from MySQL")).toBe("switched from");
    expect(reversalSignal("Reverse proxy in front")).toBe("reverse");
    expect(reversalSignal("We are switching to the new switchboard")).toBeNull();
    expect(saysIncidentOpen("Degraded checkout")).toBe("degraded");
    expect(saysIncidentOpen("Opened and mitigated")).toBeNull();
    expect(saysIncidentOpen("reopened tickets")).toBeNull();
  });

  it("reads 8,000-character hostile texts in linear time", () => {
    const hostile = [
      "1.".repeat(4000),
      "v1.2".repeat(2000),
      "9".repeat(7999) + "x",
      "no ".repeat(2666),
      `no${" ".repeat(7990)}x`,
      "switch ".repeat(1142),
      "a-".repeat(3999) + " 1.2.3",
      `${"x".repeat(7000)}${" ".repeat(990)}1.2.3`,
      "rolled \t\n".repeat(888),
    ];
    const started = performance.now();
    for (const text of hostile) {
      namedVersions(text, "subject");
      reversalSignal(text);
      saysIncidentOpen(text);
    }
    // Backtracking would take minutes; linear scans take milliseconds. The margin is for a busy machine.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
