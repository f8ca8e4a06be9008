import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, type SessionClient, startTestServer, type TestServer } from "@engram/test-support";
import { expectApiFailure } from "./sessions-support";

/**
 * Candidate review through the signed-in application: in candidate write mode, memories written with a
 * token wait as candidates; owners and admins promote them (durable, retrievable) or reject them (tombstoned,
 * kept for provenance), each decision recorded with the reviewer and the reason.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

interface ReviewedOrg {
  orgId: string;
  owner: SessionClient & { email: string };
  /** memory:read, write and control (provenance) in production. */
  token: string;
  encode(text: string, token?: string): Promise<string>;
}

/** A paid organization switched to candidate write mode through the application, with a production token. */
async function candidateOrg(): Promise<ReviewedOrg> {
  const orgId = await server.newOrg({ plan: "spark" });
  const owner = await server.signedIn(orgId, "owner");
  const switched = await owner.patch("/api/organization", { writeMode: "candidate" });
  expect(switched.status, JSON.stringify(switched.body)).toBe(200);
  const token = await newToken(owner, "production");
  async function encode(text: string, using = token): Promise<string> {
    const res = await rawRequest(server.url, "/v1/memory", { token: using, body: JSON.stringify({ text }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.memory.state).toBe("candidate");
    return res.body.memory.id;
  }
  return { orgId, owner, token, encode };
}

async function newToken(owner: SessionClient, environment: string): Promise<string> {
  const res = await owner.post("/api/organization/tokens", { name: `review ${environment}`, scopes: ["memory:read", "memory:write", "memory:control"], environment });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token;
}

const retrieveIds = async (token: string, query: string): Promise<string[]> => {
  const res = await rawRequest(server.url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.memories.map((m: { id: string }) => m.id);
};

const provenance = async (token: string, id: string) => {
  const res = await rawRequest(server.url, `/v1/memory/${id}/provenance`, { method: "GET", token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const stored = (id: string) => server.db.memory.findUniqueOrThrow({ where: { id } });
const historyCount = (memoryId: string) => server.db.memoryHistory.count({ where: { memoryId } });
const word = () => `zq${randomUUID().replace(/-/g, "").slice(0, 10)}`;

describe("listing candidates", () => {
  it("shows the organization's candidates, filtered by environment when asked, to every member", async () => {
    const org = await candidateOrg();
    const staging = await newToken(org.owner, "staging");
    const inProduction = await org.encode("Payments deploy from the blue pipeline.");
    const inStaging = await org.encode("Staging resets every night.", staging);
    const member = await server.signedIn(org.orgId, "member");

    const all = await member.get("/api/memory/candidates");
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.candidates.map((m: { id: string }) => m.id).sort()).toEqual([inProduction, inStaging].sort());
    expect(all.body.candidates.every((m: { state: string }) => m.state === "candidate")).toBe(true);

    const onlyStaging = await org.owner.get("/api/memory/candidates?environment=staging");
    expect(onlyStaging.body.candidates.map((m: { id: string; environment: string }) => [m.id, m.environment])).toEqual([[inStaging, "staging"]]);
    expect((await org.owner.get("/api/memory/candidates?environment=test")).body.candidates).toEqual([]);
    expectApiFailure(await org.owner.get("/api/memory/candidates?environment=prod"), 400, "invalid_parameter");
    expectApiFailure(await org.owner.get("/api/memory/candidates?state=durable"), 400, "unknown_parameter");
  });

  it("never shows another organization's candidates", async () => {
    const theirs = await candidateOrg();
    await theirs.encode("Their secret roadmap.");
    const mine = await candidateOrg();
    expect((await mine.owner.get("/api/memory/candidates")).body.candidates).toEqual([]);
  });
});

describe("promoting", () => {
  it("makes a candidate durable and retrievable, recording the reviewer and the reason", async () => {
    const org = await candidateOrg();
    const topic = word();
    const id = await org.encode(`Rollbacks of ${topic} need two approvals.`);
    expect(await retrieveIds(org.token, topic)).toEqual([]);

    const admin = await server.signedIn(org.orgId, "admin");
    const res = await admin.post(`/api/memory/candidates/${id}/promote`, { reason: "Confirmed with the team" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.memory).toMatchObject({ id, state: "durable" });
    expect(await retrieveIds(org.token, topic)).toEqual([id]);
    expect((await admin.get("/api/memory/candidates")).body.candidates).toEqual([]);

    const { memory, history } = await provenance(org.token, id);
    expect(memory.state).toBe("durable");
    expect(history.map((h: { action: string }) => h.action)).toEqual(["created", "promoted"]);
    expect(history[1]).toMatchObject({ fromState: "candidate", toState: "durable", actor: `user:${admin.email}`, reason: "Confirmed with the team", tokenId: null });
    // The request that reviewed it, as every /api and /v1 change records its own.
    expect(history[1].requestId).toBe(res.headers.get("x-request-id"));
    expect(history[1].requestId).toMatch(/^req_/);
  });

  it("twice answers 409 invalid_state_transition the second time, changing nothing", async () => {
    const org = await candidateOrg();
    const id = await org.encode("Invoices are sent on the first.");
    expect((await org.owner.post(`/api/memory/candidates/${id}/promote`)).status).toBe(200);
    const before = await stored(id);
    expectApiFailure(await org.owner.post(`/api/memory/candidates/${id}/promote`), 409, "invalid_state_transition");
    expectApiFailure(await org.owner.post(`/api/memory/candidates/${id}/reject`, { reason: "changed my mind" }), 409, "invalid_state_transition");
    expect(await stored(id)).toEqual(before);
    expect(await historyCount(id)).toBe(2);
  });
});

describe("rejecting", () => {
  it("tombstones the candidate, kept for provenance with the reviewer and the reason", async () => {
    const org = await candidateOrg();
    const topic = word();
    const id = await org.encode(`The ${topic} office closes at noon.`);
    const res = await org.owner.post(`/api/memory/candidates/${id}/reject`, { reason: "Not true any more" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.memory).toMatchObject({ id, state: "tombstoned" });
    expect((await stored(id)).state).toBe("tombstoned");
    expect(await retrieveIds(org.token, topic)).toEqual([]);
    expect((await org.owner.get("/api/memory/candidates")).body.candidates).toEqual([]);

    const { history } = await provenance(org.token, id);
    expect(history.map((h: { action: string }) => h.action)).toEqual(["created", "rejected"]);
    expect(history[1]).toMatchObject({ fromState: "candidate", toState: "tombstoned", actor: `user:${org.owner.email}`, reason: "Not true any more" });
  });
});

describe("who may review", () => {
  it("not a member: 403, the candidate unchanged", async () => {
    const org = await candidateOrg();
    const id = await org.encode("Members read but do not review.");
    const member = await server.signedIn(org.orgId, "member");
    const before = await stored(id);
    expectApiFailure(await member.post(`/api/memory/candidates/${id}/promote`), 403, "permission_denied");
    expectApiFailure(await member.post(`/api/memory/candidates/${id}/reject`, { reason: "no" }), 403, "permission_denied");
    expect(await stored(id)).toEqual(before);
    expect(await historyCount(id)).toBe(1);
  });

  it("not another organization's owner: 404 memory_not_found, the candidate unchanged", async () => {
    const theirs = await candidateOrg();
    const id = await theirs.encode("Their candidate.");
    const mine = await candidateOrg();
    const before = await stored(id);
    expectApiFailure(await mine.owner.post(`/api/memory/candidates/${id}/promote`), 404, "memory_not_found");
    expectApiFailure(await mine.owner.post(`/api/memory/candidates/${id}/reject`), 404, "memory_not_found");
    expectApiFailure(await mine.owner.post("/api/memory/candidates/mem_does_not_exist/promote"), 404, "memory_not_found");
    expect(await stored(id)).toEqual(before);
    expect(await historyCount(id)).toBe(1);
  });
});

describe("review rules", () => {
  it("a durable memory is no candidate: 409", async () => {
    const orgId = await server.newOrg({ plan: "spark" });
    const owner = await server.signedIn(orgId, "owner");
    const token = await newToken(owner, "production");
    const { body } = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "Written directly." }) });
    expect(body.memory.state).toBe("durable");
    expectApiFailure(await owner.post(`/api/memory/candidates/${body.memory.id}/promote`), 409, "invalid_state_transition");
    expect((await stored(body.memory.id)).state).toBe("durable");
  });

  it("an empty or unknown reason field is refused with 400, changing nothing", async () => {
    const org = await candidateOrg();
    const id = await org.encode("Reasons are checked.");
    expectApiFailure(await org.owner.post(`/api/memory/candidates/${id}/promote`, { reason: "   " }), 400, "invalid_parameter");
    expectApiFailure(await org.owner.post(`/api/memory/candidates/${id}/promote`, { reason: "x".repeat(1001) }), 400, "invalid_parameter");
    expectApiFailure(await org.owner.post(`/api/memory/candidates/${id}/promote`, { actor: "someone else" }), 400, "unknown_parameter");
    expect((await stored(id)).state).toBe("candidate");
  });

  it("a promotion and a rejection at the same moment: exactly one wins", async () => {
    const org = await candidateOrg();
    const admin = await server.signedIn(org.orgId, "admin");
    for (let round = 0; round < 4; round++) {
      const id = await org.encode(`Contested fact ${round}.`);
      const [promoted, rejected] = await Promise.all([
        org.owner.post(`/api/memory/candidates/${id}/promote`, { reason: "yes" }),
        admin.post(`/api/memory/candidates/${id}/reject`, { reason: "no" }),
      ]);
      const winners = [promoted, rejected].filter((res) => res.status === 200);
      const losers = [promoted, rejected].filter((res) => res.status !== 200);
      expect(winners, JSON.stringify([promoted.body, rejected.body])).toHaveLength(1);
      expectApiFailure(losers[0]!, 409, "invalid_state_transition");
      const state = (await stored(id)).state;
      expect(state).toBe(winners[0] === promoted ? "durable" : "tombstoned");
      expect(await historyCount(id)).toBe(2);
    }
  });
});
