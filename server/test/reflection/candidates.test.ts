import type { TEnvironment, TReflectionSettings } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { reflectionContext } from "../../src/domain/reflection/context";
import { candidatesProcess } from "../../src/domain/reflection/processes/candidates";
import { DEFAULT_REFLECTION_SETTINGS } from "../../src/domain/reflection/settings";

const DAY_MS = 24 * 60 * 60 * 1000;
let now = new Date("2026-02-02T08:00:00.000Z");
const later = (days: number) => {
  now = new Date(now.getTime() + days * DAY_MS);
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ now: () => now });
});
afterAll(() => server?.stop());

type CandidateSettings = TReflectionSettings["processes"]["candidates"];

/** One candidates pass over an environment, inside a real run. Defaults: auto-promotion off, expiry after 30 days. */
async function runCandidates(orgId: string, options: { environment?: TEnvironment; candidates?: Partial<CandidateSettings> } = {}) {
  const { store } = server.services;
  const scope = { orgId, environment: options.environment ?? "production" };
  const settings = structuredClone(DEFAULT_REFLECTION_SETTINGS);
  Object.assign(settings.processes.candidates, options.candidates);
  const run = await store.reflectionRuns.start(scope, { trigger: "person", triggeredBy: null, owner: "test", leaseUntil: new Date(now.getTime() + 60_000), at: now });
  const result = await candidatesProcess.run(reflectionContext(store, { scope, runId: run!.id, settings, clock: () => now }));
  await store.reflectionRuns.finish(run!.id, "test", "completed", now);
  return { ...result, runId: run!.id };
}

/** An organization whose encodes wait for review as candidates, with a production token. */
async function candidateTenant() {
  const orgId = await server.newOrg({ plan: "spark" });
  await server.services.organizations.setWriteMode(orgId, "candidate");
  return { orgId, token: await server.newToken(orgId) };
}

function writer(token: string) {
  const api = apiClient(server.url, token);
  return {
    api,
    /** Posts a developer event and answers the candidate it made. */
    async event(body: { type: string; text: string; subject?: string }) {
      const res = await rawRequest(server.url, "/v1/memory/events", { token, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`event answered ${res.status}`);
      expect(res.body.candidateIds).toHaveLength(1);
      return res.body.candidateIds[0] as string;
    },
    async encode(text: string, confidence: number) {
      const res = await api.memory.encode({ body: { text, confidence } });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      expect(res.body.memory.state).toBe("candidate");
      return res.body.memory.id;
    },
    async retrieved(query: string) {
      const res = await api.memory.retrieve({ body: { query } });
      if (res.status !== 200) throw new Error(`retrieve answered ${res.status}`);
      return res.body.memories.map((m) => m.id);
    },
  };
}

const stateOf = async (id: string) => (await server.db.memory.findUniqueOrThrow({ where: { id } })).state;

async function snapshot(orgId: string) {
  return {
    memories: await server.db.memory.findMany({ where: { orgId }, orderBy: { id: "asc" }, select: { id: true, state: true, updatedAt: true } }),
    history: await server.db.memoryHistory.count({ where: { memory: { orgId } } }),
    events: await server.db.reflectionEvent.count({ where: { orgId } }),
  };
}

describe("candidates: promotion", () => {
  it("promotes corroborated candidates only when auto-promotion is on, and they are then retrieved", async () => {
    now = new Date("2026-02-02T08:00:00.000Z");
    const { orgId, token } = await candidateTenant();
    const w = writer(token);
    const confident = await w.event({ type: "deploy.completed", text: "Deployed payments-api 2.4.0 to production.", subject: "payments-api" });
    const repeated = [
      await w.event({ type: "review.finding", text: "auth-service: token refresh lacks a retry.", subject: "auth-service" }),
      await w.event({ type: "review.finding", text: "auth-service: refresh errors are swallowed.", subject: "auth-service" }),
    ];
    const once = await w.event({ type: "incident.opened", text: "INC-5 opened: search latency.", subject: "INC-5" });
    // Events without a subject are about nothing in particular: two findings are not one repeated.
    const noSubject = [
      await w.event({ type: "review.finding", text: "A loop allocates in the hot path." }),
      await w.event({ type: "review.finding", text: "A lock is held across an await." }),
    ];
    // The same event in Test does not corroborate the one in production.
    const billing = await w.event({ type: "review.finding", text: "billing: rounding differs from the ledger.", subject: "billing" });
    await writer(await server.newToken(orgId, { environment: "test" })).event({ type: "review.finding", text: "billing: rounding again.", subject: "billing" });
    const reinforced = await w.encode("The on-call handbook is in docs/oncall.md.", 0.5);
    for (let i = 0; i < 2; i++) expect((await w.api.memory.reinforce({ params: { id: reinforced }, body: {} })).status).toBe(200);
    later(1);

    expect(await w.retrieved("payments-api deployed")).not.toContain(confident);
    expect(await runCandidates(orgId)).toMatchObject({ examined: 8, actions: 0 });
    expect(await runCandidates(orgId, { candidates: { autoPromote: false, promoteMinConfidence: 0.1 } })).toMatchObject({ actions: 0 });
    for (const id of [confident, ...repeated, once, ...noSubject, billing, reinforced]) expect(await stateOf(id), id).toBe("candidate");

    const result = await runCandidates(orgId, { candidates: { autoPromote: true } });
    expect(result).toMatchObject({ examined: 8, actions: 4 });
    for (const id of [confident, ...repeated, reinforced]) expect(await stateOf(id), id).toBe("durable");
    for (const id of [once, ...noSubject, billing]) expect(await stateOf(id), id).toBe("candidate");

    const reasons = await server.db.reflectionEvent.findMany({ where: { orgId, runId: result.runId }, select: { memoryId: true, action: true, reason: true } });
    const reasonOf = (id: string) => reasons.find((event) => event.memoryId === id)!.reason;
    expect(reasons.every((event) => event.action === "promoted")).toBe(true);
    expect(reasonOf(confident)).toContain("confidence 0.90 (at least 0.9)");
    expect(reasonOf(repeated[0]!)).toContain("its event was seen 2 times (at least 2)");
    expect(reasonOf(reinforced)).toContain("reinforced 2 times (at least 2)");

    const provenance = await w.api.memory.provenance({ params: { id: confident } });
    if (provenance.status !== 200) throw new Error(`provenance answered ${provenance.status}`);
    expect(provenance.body.history.at(-1)).toMatchObject({
      action: "promoted",
      fromState: "candidate",
      toState: "durable",
      actor: "reflection",
      requestId: result.runId,
      reason: reasonOf(confident),
    });
    expect(await w.retrieved("payments-api deployed")).toContain(confident);

    // A second run changes nothing.
    const afterFirst = await snapshot(orgId);
    expect(await runCandidates(orgId, { candidates: { autoPromote: true } })).toMatchObject({ examined: 4, actions: 0 });
    expect(await snapshot(orgId)).toEqual(afterFirst);
  });
});

describe("candidates: expiry", () => {
  it("tombstones candidates nobody promoted in time, keeping them and their history for audit", async () => {
    now = new Date("2026-02-02T08:00:00.000Z");
    const { orgId, token } = await candidateTenant();
    const other = await candidateTenant();
    const w = writer(token);
    const old = await w.event({ type: "support.ticket.opened", text: "Customer cannot export CSV.", subject: "TICKET-1" });
    const corroborated = await w.event({ type: "decision.recorded", text: "We adopt trunk-based development.", subject: "git" });
    const otherOld = await writer(other.token).event({ type: "support.ticket.opened", text: "Customer cannot log in.", subject: "TICKET-9" });
    const testOld = await writer(await server.newToken(orgId, { environment: "test" })).event({ type: "support.ticket.opened", text: "Test ticket.", subject: "TICKET-2" });
    later(29);
    const young = await w.event({ type: "support.ticket.opened", text: "Customer asks for SSO.", subject: "TICKET-3" });
    later(1);
    const otherBefore = await snapshot(other.orgId);

    const result = await runCandidates(orgId);
    expect(result).toMatchObject({ examined: 3, actions: 2 });
    expect(await stateOf(old)).toBe("tombstoned");
    // Auto-promotion off: corroborated or not, a candidate nobody promoted expires.
    expect(await stateOf(corroborated)).toBe("tombstoned");
    expect(await stateOf(young)).toBe("candidate");
    expect(await stateOf(testOld)).toBe("candidate");
    expect(await snapshot(other.orgId)).toEqual(otherBefore);
    expect(await stateOf(otherOld)).toBe("candidate");

    const provenance = await w.api.memory.provenance({ params: { id: old } });
    if (provenance.status !== 200) throw new Error(`provenance answered ${provenance.status}`);
    const last = provenance.body.history.at(-1)!;
    expect(last).toMatchObject({ action: "rejected", fromState: "candidate", toState: "tombstoned", actor: "reflection", requestId: result.runId });
    expect(last.reason).toContain("a candidate for 30 days (expires after 30)");
    expect(last.reason).toContain("not corroborated");
    expect(provenance.body.history[0]).toMatchObject({ action: "created", toState: "candidate" });
    const event = await server.db.reflectionEvent.findFirstOrThrow({ where: { memoryId: corroborated } });
    expect(event).toMatchObject({ process: "candidates", action: "expired" });
    expect(event.reason).toContain("corroborated (confidence 0.90 (at least 0.9)) but not promoted");

    const afterFirst = await snapshot(orgId);
    expect(await runCandidates(orgId)).toMatchObject({ examined: 1, actions: 0 });
    expect(await snapshot(orgId)).toEqual(afterFirst);
    expect(await server.db.memory.count({ where: { orgId } })).toBe(4);
  });

  it("promotes before it expires when auto-promotion is on", async () => {
    now = new Date("2026-02-02T08:00:00.000Z");
    const { orgId, token } = await candidateTenant();
    const w = writer(token);
    const corroborated = await w.event({ type: "deploy.completed", text: "Deployed search 1.0.0.", subject: "search" });
    const weak = await w.event({ type: "ci.run.failed", text: "CI failed on flaky test.", subject: "search" });
    later(45);
    expect(await runCandidates(orgId, { candidates: { autoPromote: true, expireAfterDays: 40 } })).toMatchObject({ actions: 2 });
    expect(await stateOf(corroborated)).toBe("durable");
    expect(await stateOf(weak)).toBe("tombstoned");
  });
});
