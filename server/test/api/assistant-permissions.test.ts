import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionClient, startTestServer, type TestServer } from "@engram/test-support";
import { MAX_PERSONAL_ASSISTANTS } from "../../src/domain/assistants/assistant-service";

/**
 * Who may see and change which assistant, route by route. Access: org_shared assistants are seen by every
 * member; a personal one by its owner and by owners and admins. Changes: org_shared by owners and admins; a
 * personal one only by its owner. Without access an assistant is as absent as a missing one (404).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

type Role = "owner" | "admin" | "member";
type Target = "org_shared" | "own personal" | "someone else's personal";
type Outcome = 200 | 403 | 404;

/** The routes, reads first; delete last, as it ends the assistant. */
const ROUTES = [
  { name: "read capabilities", kind: "read", send: (c: SessionClient, id: string) => c.get(`/api/assistants/${id}/capabilities`) },
  { name: "available capabilities", kind: "read", send: (c: SessionClient, id: string) => c.get(`/api/assistants/${id}/available-capabilities`) },
  { name: "changes", kind: "read", send: (c: SessionClient, id: string) => c.get(`/api/assistants/${id}/changes`) },
  { name: "PATCH capabilities", kind: "modify", send: (c: SessionClient, id: string) => c.patch(`/api/assistants/${id}/capabilities`, { capabilities: ["cite_sources"] }) },
  { name: "rename", kind: "modify", send: (c: SessionClient, id: string) => c.patch(`/api/assistants/${id}`, { name: "Renamed" }) },
  { name: "delete", kind: "modify", send: (c: SessionClient, id: string) => c.delete(`/api/assistants/${id}`) },
] as const;

const EXPECTED: Record<Target, Record<Role, { read: Outcome; modify: Outcome }>> = {
  org_shared: { owner: { read: 200, modify: 200 }, admin: { read: 200, modify: 200 }, member: { read: 200, modify: 403 } },
  "own personal": { owner: { read: 200, modify: 200 }, admin: { read: 200, modify: 200 }, member: { read: 200, modify: 200 } },
  "someone else's personal": { owner: { read: 200, modify: 403 }, admin: { read: 200, modify: 403 }, member: { read: 404, modify: 404 } },
};

const ERROR_OF: Record<Outcome, string | null> = { 200: null, 403: "permission_denied", 404: "assistant_not_found" };

async function create(client: SessionClient, type: "org_shared" | "employee_personal"): Promise<string> {
  const res = await client.post("/api/assistants", { name: `Assistant of ${type}`, type });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.assistant._id;
}

async function snapshot(id: string) {
  const row = await server.db.assistant.findUnique({ where: { id } });
  return { row, changes: await server.db.assistantChange.count({ where: { assistantId: id } }) };
}

describe("the role × assistant matrix, route by route", () => {
  for (const role of ["owner", "admin", "member"] as const) {
    for (const target of ["org_shared", "own personal", "someone else's personal"] as const) {
      const expected = EXPECTED[target][role];
      it(`${role} on ${target}: reads ${expected.read}, changes ${expected.modify}`, async () => {
        const orgId = await server.newOrg({ plan: "seed" });
        const actor = await server.signedIn(orgId, role);
        // Someone else's is a plain member's; the org_shared one is made by another owner.
        const creator = target === "org_shared" ? await server.signedIn(orgId, "owner") : target === "own personal" ? actor : await server.signedIn(orgId, "member");
        const id = await create(creator, target === "org_shared" ? "org_shared" : "employee_personal");

        for (const route of ROUTES) {
          const outcome = expected[route.kind];
          const before = await snapshot(id);
          const res = await route.send(actor, id);
          expect(res.status, `${route.name}: ${JSON.stringify(res.body)}`).toBe(outcome);
          if (outcome === 200) {
            expect(res.body.success, route.name).toBe(true);
          } else {
            expect(Object.keys(res.body).sort(), route.name).toEqual(["error", "message", "success"]);
            expect(res.body, route.name).toMatchObject({ success: false, error: ERROR_OF[outcome] });
            // A refusal changes nothing and writes no change-log row.
            expect(await snapshot(id), route.name).toEqual(before);
          }
        }
        const gone = await server.db.assistant.findUnique({ where: { id } });
        expect(gone === null).toBe(expected.modify === 200);
      });
    }
  }

  it("a member refused an org_shared change is told so before the body is checked", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const member = await server.signedIn(orgId, "member");
    const id = await create(owner, "org_shared");
    const res = await member.patch(`/api/assistants/${id}/capabilities`, { capabilities: ["read_minds", "track_tasks"] });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("permission_denied");
    // And someone else's personal assistant is absent, whatever the body.
    const personal = await create(await server.signedIn(orgId, "member"), "employee_personal");
    const hidden = await member.patch(`/api/assistants/${personal}/capabilities`, { capabilities: ["read_minds"] });
    expect(hidden.status).toBe(404);
  });
});

describe("creating", () => {
  it("a member cannot create an org_shared assistant, but creates a personal one they own", async () => {
    const orgId = await server.newOrg();
    const member = await server.signedIn(orgId, "member");
    const refused = await member.post("/api/assistants", { name: "Company bot", type: "org_shared" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: "permission_denied" });
    expect(await server.db.assistant.count({ where: { orgId } })).toBe(0);
    expect(await server.db.assistantChange.count({ where: { orgId } })).toBe(0);

    const created = await member.post("/api/assistants", { name: "My bot", type: "employee_personal" });
    expect(created.status).toBe(201);
    expect(created.body.assistant).toMatchObject({ type: "employee_personal", ownerUserId: member.userId });
  });

  it("owners and admins create org_shared assistants, owned by no one", async () => {
    const orgId = await server.newOrg();
    for (const role of ["owner", "admin"] as const) {
      const client = await server.signedIn(orgId, role);
      const res = await client.post("/api/assistants", { name: `${role}'s team bot`, type: "org_shared" });
      expect(res.status).toBe(201);
      expect(res.body.assistant.ownerUserId).toBeNull();
    }
  });

  it("a personal assistant made by an owner is still only its owner's to change", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const otherOwner = await server.signedIn(orgId, "owner");
    const id = await create(owner, "employee_personal");
    expect((await otherOwner.get(`/api/assistants/${id}/capabilities`)).status).toBe(200);
    expect((await otherOwner.patch(`/api/assistants/${id}`, { name: "Mine now" })).status).toBe(403);
  });
});

describe("how many personal assistants a person keeps", () => {
  it(`at most ${MAX_PERSONAL_ASSISTANTS} in an organization: one more answers 409, and deleting one makes room`, async () => {
    const orgId = await server.newOrg();
    const member = await server.signedIn(orgId, "member");
    const ids: string[] = [];
    for (let i = 0; i < MAX_PERSONAL_ASSISTANTS; i++) ids.push(await create(member, "employee_personal"));

    const refused = await member.post("/api/assistants", { name: "One too many", type: "employee_personal" });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: "assistant_limit_reached" });
    expect(refused.body.message).toContain(String(MAX_PERSONAL_ASSISTANTS));
    expect(await server.db.assistant.count({ where: { orgId } })).toBe(MAX_PERSONAL_ASSISTANTS);
    expect(await server.db.assistantChange.count({ where: { orgId } })).toBe(MAX_PERSONAL_ASSISTANTS);

    // Others' assistants, and the organization's own, do not count against the person.
    const owner = await server.signedIn(orgId, "owner");
    await create(owner, "employee_personal");
    await create(owner, "org_shared");
    expect((await member.delete(`/api/assistants/${ids[0]}`)).status).toBe(200);
    await create(member, "employee_personal");
  });
});

describe("another organization's assistants", () => {
  /** The body as it would be for `id` had it been `other`: the same words, nothing else told apart. */
  const asIf = (body: unknown, id: string, other: string) => JSON.parse(JSON.stringify(body).replaceAll(id, other));

  it("answer 404 on every route, even to the other organization's owner, with the body a random id gets", async () => {
    const orgA = await server.newOrg({ plan: "boost" });
    const orgB = await server.newOrg({ plan: "boost" });
    const ownerA = await server.signedIn(orgA, "owner");
    const ownerB = await server.signedIn(orgB, "owner");
    const memberB = await server.signedIn(orgB, "member");
    const shared = await create(ownerB, "org_shared");
    const personal = await create(memberB, "employee_personal");
    const random = `asst_${"0".repeat(26)}`;

    for (const id of [shared, personal]) {
      const before = await snapshot(id);
      for (const route of ROUTES) {
        const res = await route.send(ownerA, id);
        const absent = await route.send(ownerA, random);
        expect(res.status, route.name).toBe(404);
        expect(absent.status, route.name).toBe(404);
        expect(res.body, route.name).toMatchObject({ success: false, error: "assistant_not_found" });
        expect(res.body, route.name).toEqual(asIf(absent.body, random, id));
        for (const header of ["etag", "content-length"]) {
          expect(res.headers.get(header) === null, `${route.name} ${header}`).toBe(absent.headers.get(header) === null);
        }
      }
      // With a conditional request too.
      const conditional = await ownerA.patch(`/api/assistants/${id}/capabilities`, { capabilities: [] }, { headers: { "if-match": '"1"' } });
      expect(conditional.status).toBe(404);
      expect(await snapshot(id)).toEqual(before);
    }
    expect((await ownerA.get("/api/assistants")).body.assistants).toEqual([]);
    // Still there for their own organization.
    expect((await ownerB.get(`/api/assistants/${shared}/capabilities`)).status).toBe(200);
  });

  it("stay out of reach for a member of both organizations acting in the other one", async () => {
    const orgA = await server.newOrg();
    const orgB = await server.newOrg();
    const person = await server.signedIn(orgA, "owner");
    const ownerB = await server.signedIn(orgB, "owner");
    const inB = await create(ownerB, "org_shared");
    await server.services.memberships.add(orgB, person.userId, "member", "cli");
    // The session acts in organization A: B's assistant is not reachable from it.
    const me = await person.get("/api/auth/me");
    expect(me.body.activeOrganizationId).toBe(orgA);
    expect((await person.get(`/api/assistants/${inB}/capabilities`)).status).toBe(404);
    // Switching to B makes it reachable with B's role (a member: read, not change).
    expect((await person.put("/api/auth/organization", { organizationId: orgB })).status).toBe(200);
    expect((await person.get(`/api/assistants/${inB}/capabilities`)).status).toBe(200);
    expect((await person.patch(`/api/assistants/${inB}`, { name: "x" })).status).toBe(403);
  });
});

describe("without a session", () => {
  it("every assistants and capabilities route answers 401 not_signed_in", async () => {
    const owner = await server.signedIn(await server.newOrg(), "owner");
    const id = await create(owner, "org_shared");
    const anonymous = new SessionClient(server.url);
    const requests = [
      anonymous.get("/api/assistants"),
      anonymous.post("/api/assistants", { name: "x", type: "org_shared" }),
      anonymous.get("/api/capabilities/registry"),
      anonymous.get("/api/capabilities/registry/cite_sources"),
      ...ROUTES.map((route) => route.send(anonymous, id)),
    ];
    for (const res of await Promise.all(requests)) {
      expect(res.status).toBe(401);
      expect(Object.keys(res.body).sort()).toEqual(["error", "message", "success"]);
      expect(res.body).toMatchObject({ success: false, error: "not_signed_in" });
    }
    // A signed-out browser is as anonymous.
    expect((await owner.post("/api/auth/logout", {})).status).toBe(200);
    expect((await owner.get(`/api/assistants/${id}/capabilities`)).status).toBe(401);
    expect(await server.db.assistant.count({ where: { id } })).toBe(1);
  });
});
