import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionClient, startTestServer, type TestServer } from "@engram/test-support";
import { expectApiFailure } from "./sessions-support";

/**
 * Members through the signed-in application: owners and admins add people (making accounts when needed),
 * change roles and remove members; only owners touch the owner role; an organization always keeps an owner,
 * even when two owners demote each other at the same moment.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

const newEmail = () => `new-${randomUUID().slice(0, 12)}@example.com`;
const roleOf = async (orgId: string, userId: string) => (await server.db.membership.findUnique({ where: { orgId_userId: { orgId, userId } } }))?.role ?? null;
const ownerCount = (orgId: string) => server.db.membership.count({ where: { orgId, role: "owner" } });
const members = (orgId: string) => server.db.membership.findMany({ where: { orgId }, orderBy: { userId: "asc" } });

describe("listing", () => {
  it("shows every member with their role to any member", async () => {
    const orgId = await server.newOrg();
    const owner = await server.newPerson(orgId, "owner");
    const member = await server.signedIn(orgId, "member");
    const res = await member.get("/api/organization/members");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.members).toHaveLength(2);
    expect(res.body.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ userId: owner.userId, email: owner.email, role: "owner" }),
        expect.objectContaining({ userId: member.userId, email: member.email, role: "member" }),
      ]),
    );
  });
});

describe("listing a page at a time", () => {
  it("pages the members oldest first, each page after the last member of the one before", async () => {
    const orgId = await server.newOrg();
    for (let i = 0; i < 4; i++) await server.newPerson(orgId, "member");
    const reader = await server.signedIn(orgId, "member");
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await reader.get(`/api/organization/members?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      sizes.push(page.body.members.length);
      seen.push(...page.body.members.map((member: { userId: string }) => member.userId));
      cursor = page.body.nextCursor;
    } while (cursor);
    const stored = await server.db.membership.findMany({ where: { orgId }, orderBy: [{ createdAt: "asc" }, { userId: "asc" }] });
    expect(seen).toEqual(stored.map((row) => row.userId));
    expect(sizes).toEqual([2, 2, 1]);
    expect((await reader.get("/api/organization/members")).body.nextCursor).toBeNull();
    expectApiFailure(await reader.get("/api/organization/members?limit=201"), 400, "invalid_parameter");
    expectApiFailure(await reader.get("/api/organization/members?cursor=abc"), 400, "invalid_parameter", /^cursor: /);
  });
});

describe("adding", () => {
  it("adds an existing account by email (any case) with 201 and no password", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const elsewhere = await server.newPerson(await server.newOrg(), "owner");
    const res = await owner.post("/api/organization/members", { email: `  ${elsewhere.email.toUpperCase()} `, role: "admin" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ success: true, member: expect.objectContaining({ userId: elsewhere.userId, email: elsewhere.email, role: "admin" }) });
    expect(await roleOf(orgId, elsewhere.userId)).toBe("admin");
    // Their own password still signs them in, now with both organizations.
    const session = await new SessionClient(server.url).signIn(elsewhere.email, elsewhere.password);
    expect(session.body.organizations.map((o: { id: string }) => o.id)).toContain(orgId);
  });

  it("makes an account for a new email, whose temporary password (shown once) signs in", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const email = newEmail();
    const res = await owner.post("/api/organization/members", { email, role: "member", displayName: "New Person" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.member).toMatchObject({ email, role: "member", displayName: "New Person" });
    expect(typeof res.body.temporaryPassword).toBe("string");
    const browser = new SessionClient(server.url);
    const signedIn = await browser.signIn(email, res.body.temporaryPassword);
    expect(signedIn.body.activeOrganizationId).toBe(orgId);
    expect((await browser.get("/api/organization")).body.role).toBe("member");
    expect(JSON.stringify((await owner.get("/api/organization/members")).body)).not.toContain(res.body.temporaryPassword);
  });

  it("answers 409 already_exists for someone already a member, changing nothing", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const member = await server.newPerson(orgId, "member");
    expectApiFailure(await owner.post("/api/organization/members", { email: member.email, role: "admin" }), 409, "already_exists");
    expect(await roleOf(orgId, member.userId)).toBe("member");
  });

  it("refuses an address that is not an email with 400, making no account", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const usersBefore = await server.db.user.count();
    for (const email of ["not-an-email", "", "a b@example.com", "@example.com"]) {
      expectApiFailure(await owner.post("/api/organization/members", { email, role: "member" }), 400, "invalid_parameter");
    }
    expectApiFailure(await owner.post("/api/organization/members", { email: newEmail(), role: "superuser" }), 400, "invalid_parameter");
    expect(await server.db.user.count()).toBe(usersBefore);
    expect(await server.db.membership.count({ where: { orgId } })).toBe(1);
  });
});

describe("what admins may do", () => {
  it("only with the role they have when the change is made: an admin demoted while the request was on its way adds no one", async () => {
    const orgId = await server.newOrg();
    const admin = await server.signedIn(orgId, "admin");
    const newcomer = await server.newPerson(await server.newOrg());
    await server.services.memberships.changeRole(orgId, admin.userId, "member", "cli");
    // The request was authorized as an admin; by the time it writes, its actor is a member.
    await expect(server.services.memberships.add(orgId, newcomer.userId, "member", { userId: admin.userId, role: "admin", label: admin.email })).rejects.toMatchObject({ code: "permission_denied" });
    expect(await roleOf(orgId, newcomer.userId)).toBeNull();
  });

  it("add members and admins", async () => {
    const orgId = await server.newOrg();
    const admin = await server.signedIn(orgId, "admin");
    for (const role of ["member", "admin"] as const) {
      const res = await admin.post("/api/organization/members", { email: newEmail(), role });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.member.role).toBe(role);
    }
  });

  it("cannot grant owner: 403, and no account is made for a new email", async () => {
    const orgId = await server.newOrg();
    await server.newPerson(orgId, "owner");
    const admin = await server.signedIn(orgId, "admin");
    const member = await server.newPerson(orgId, "member");
    const email = newEmail();
    expectApiFailure(await admin.post("/api/organization/members", { email, role: "owner" }), 403, "permission_denied");
    expect(await server.db.user.count({ where: { email } })).toBe(0);
    const existing = await server.newPerson(await server.newOrg(), "member");
    expectApiFailure(await admin.post("/api/organization/members", { email: existing.email, role: "owner" }), 403, "permission_denied");
    expect(await roleOf(orgId, existing.userId)).toBeNull();
    expectApiFailure(await admin.patch(`/api/organization/members/${member.userId}`, { role: "owner" }), 403, "permission_denied");
    expectApiFailure(await admin.patch(`/api/organization/members/${admin.userId}`, { role: "owner" }), 403, "permission_denied");
    expect(await roleOf(orgId, member.userId)).toBe("member");
    expect(await roleOf(orgId, admin.userId)).toBe("admin");
  });

  it("cannot change or remove an owner (403)", async () => {
    const orgId = await server.newOrg();
    const owner = await server.newPerson(orgId, "owner");
    await server.newPerson(orgId, "owner");
    const admin = await server.signedIn(orgId, "admin");
    for (const role of ["admin", "member"]) expectApiFailure(await admin.patch(`/api/organization/members/${owner.userId}`, { role }), 403, "permission_denied");
    expectApiFailure(await admin.delete(`/api/organization/members/${owner.userId}`), 403, "permission_denied");
    expect(await roleOf(orgId, owner.userId)).toBe("owner");
  });

  it("change members' and admins' roles and remove them", async () => {
    const orgId = await server.newOrg();
    await server.newPerson(orgId, "owner");
    const admin = await server.signedIn(orgId, "admin");
    const member = await server.newPerson(orgId, "member");
    const res = await admin.patch(`/api/organization/members/${member.userId}`, { role: "admin" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.member).toMatchObject({ userId: member.userId, role: "admin" });
    expect(await roleOf(orgId, member.userId)).toBe("admin");
    expect((await admin.delete(`/api/organization/members/${member.userId}`)).status).toBe(200);
    expect(await roleOf(orgId, member.userId)).toBeNull();
  });
});

describe("an organization with no owner yet (made by the command line)", () => {
  it("still lets its admins manage members, and an owner can be added", async () => {
    const orgId = await server.newOrg();
    const admin = await server.signedIn(orgId, "admin");
    const member = await server.newPerson(orgId, "member");
    expect((await admin.patch(`/api/organization/members/${member.userId}`, { role: "admin" })).status).toBe(200);
    expect((await admin.delete(`/api/organization/members/${member.userId}`)).status).toBe(200);
    expect(await roleOf(orgId, member.userId)).toBeNull();
    const owner = await server.newPerson(await server.newOrg(), "member");
    await server.services.memberships.add(orgId, owner.userId, "owner", "cli");
    expect(await ownerCount(orgId)).toBe(1);
  });
});

describe("members", () => {
  it("manage no one (403), changing nothing", async () => {
    const orgId = await server.newOrg();
    const owner = await server.newPerson(orgId, "owner");
    const other = await server.newPerson(orgId, "member");
    const member = await server.signedIn(orgId, "member");
    const email = newEmail();
    expectApiFailure(await member.post("/api/organization/members", { email, role: "member" }), 403, "permission_denied");
    expectApiFailure(await member.patch(`/api/organization/members/${other.userId}`, { role: "admin" }), 403, "permission_denied");
    expectApiFailure(await member.patch(`/api/organization/members/${member.userId}`, { role: "admin" }), 403, "permission_denied");
    expectApiFailure(await member.delete(`/api/organization/members/${other.userId}`), 403, "permission_denied");
    expectApiFailure(await member.delete(`/api/organization/members/${owner.userId}`), 403, "permission_denied");
    expect(await server.db.user.count({ where: { email } })).toBe(0);
    expect((await members(orgId)).map((m) => m.role).sort()).toEqual(["member", "member", "owner"]);
  });
});

describe("owners", () => {
  it("change any role, owner included", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const member = await server.newPerson(orgId, "member");
    for (const role of ["owner", "admin", "member"] as const) {
      const res = await owner.patch(`/api/organization/members/${member.userId}`, { role });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await roleOf(orgId, member.userId)).toBe(role);
    }
  });

  it("the last one cannot be demoted or removed (409 last_owner), by themselves or anyone", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    for (const role of ["admin", "member"]) expectApiFailure(await owner.patch(`/api/organization/members/${owner.userId}`, { role }), 409, "last_owner");
    expectApiFailure(await owner.delete(`/api/organization/members/${owner.userId}`), 409, "last_owner");
    expect(await roleOf(orgId, owner.userId)).toBe("owner");
    expect((await owner.get("/api/organization")).body.role).toBe("owner");
  });

  it("demoting each other at the same moment never leave the organization without an owner", async () => {
    for (let round = 0; round < 4; round++) {
      const orgId = await server.newOrg();
      const [a, b] = await Promise.all([server.signedIn(orgId, "owner"), server.signedIn(orgId, "owner")]);
      const [byA, byB] = await Promise.all([
        a.patch(`/api/organization/members/${b.userId}`, { role: "member" }),
        b.patch(`/api/organization/members/${a.userId}`, { role: "member" }),
      ]);
      const statuses = [byA.status, byB.status].sort();
      // One demotion wins; the other finds itself demoted (403) or would remove the last owner (409).
      expect(statuses[0], JSON.stringify([byA.body, byB.body])).toBe(200);
      expect([403, 409], JSON.stringify([byA.body, byB.body])).toContain(statuses[1]);
      expect(await ownerCount(orgId)).toBe(1);
    }
  });

  it("removing each other at the same moment never leave the organization without an owner", async () => {
    for (let round = 0; round < 4; round++) {
      const orgId = await server.newOrg();
      const [a, b] = await Promise.all([server.signedIn(orgId, "owner"), server.signedIn(orgId, "owner")]);
      const [byA, byB] = await Promise.all([a.delete(`/api/organization/members/${b.userId}`), b.delete(`/api/organization/members/${a.userId}`)]);
      const statuses = [byA.status, byB.status].sort();
      // The loser is no member any more: when its session is read (404 organization_not_found) or inside the
      // change's locked transaction (403 permission_denied); or it would remove the last owner (409).
      expect(statuses[0], JSON.stringify([byA.body, byB.body])).toBe(200);
      expect([403, 404, 409], JSON.stringify([byA.body, byB.body])).toContain(statuses[1]);
      expect(await ownerCount(orgId)).toBe(1);
    }
  });
});

describe("removing", () => {
  it("deletes the member's personal assistants (keeping their change log) and leaves organization ones", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const admin = await server.signedIn(orgId, "admin");
    const personal = (await admin.post("/api/assistants", { name: "Mine", type: "employee_personal" })).body.assistant;
    const shared = (await admin.post("/api/assistants", { name: "Ours", type: "org_shared" })).body.assistant;
    const ownersOwn = (await owner.post("/api/assistants", { name: "Owner's", type: "employee_personal" })).body.assistant;
    expect((await owner.get(`/api/assistants/${personal._id}/capabilities`)).status).toBe(200);

    expect((await owner.delete(`/api/organization/members/${admin.userId}`)).status).toBe(200);
    expectApiFailure(await owner.get(`/api/assistants/${personal._id}/capabilities`), 404, "assistant_not_found");
    // Its change log stays readable to those who oversee the organization.
    const kept = await owner.get(`/api/assistants/${personal._id}/changes`);
    expect(kept.body.changes.map((change: { action: string }) => change.action)).toEqual(["deleted", "created"]);
    expect((await owner.get(`/api/assistants/${shared._id}/capabilities`)).status).toBe(200);
    expect((await owner.get(`/api/assistants/${ownersOwn._id}/capabilities`)).status).toBe(200);
    expect((await owner.get("/api/assistants")).body.assistants.map((a: { _id: string }) => a._id).sort()).toEqual([shared._id, ownersOwn._id].sort());
    const log = await server.db.assistantChange.findMany({ where: { assistantId: personal._id }, orderBy: { version: "asc" } });
    expect(log.map((change) => change.action)).toEqual(["created", "deleted"]);
    expect(log[1]!.actor).toBe(`user:${owner.email}`);
  });

  it("deletes more personal assistants than one statement can name, logging each", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const member = await server.signedIn(orgId, "member");
    const first = (await member.post("/api/assistants", { name: "Mine", type: "employee_personal" })).body.assistant;
    const row = await server.db.assistant.findUniqueOrThrow({ where: { id: first._id } });
    const copies = 1_200;
    for (let start = 0; start < copies; start += 100) {
      const data = Array.from({ length: 100 }, (_, i) => ({ ...row, id: `${first._id}_${start + i}`, name: `Mine ${start + i}` }));
      await server.db.assistant.createMany({ data });
    }
    expect((await owner.delete(`/api/organization/members/${member.userId}`)).status).toBe(200);
    expect(await server.db.assistant.count({ where: { orgId, ownerUserId: member.userId } })).toBe(0);
    expect(await server.db.assistantChange.count({ where: { orgId, action: "deleted" } })).toBe(copies + 1);
  });

  it("leaves the removed person's session in no organization (404 organization_not_found), or in their other one", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const loner = await server.signedIn(orgId, "member");
    const traveller = await server.signedIn(orgId, "member");
    const otherOrg = await server.newOrg();
    await server.services.memberships.add(otherOrg, traveller.userId, "admin", "cli");

    for (const person of [loner, traveller]) expect((await owner.delete(`/api/organization/members/${person.userId}`)).status).toBe(200);
    expectApiFailure(await loner.get("/api/assistants"), 404, "organization_not_found");
    expectApiFailure(await loner.get("/api/organization"), 404, "organization_not_found");
    expectApiFailure(await loner.get("/api/organization/members"), 404, "organization_not_found");
    const me = await loner.get("/api/auth/me");
    expect(me.body).toMatchObject({ organizations: [], activeOrganizationId: null });

    const now = await traveller.get("/api/organization");
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ organization: { id: otherOrg }, role: "admin" });
    // Acting in the other organization: what it creates lands there, not in the one it left.
    const created = await traveller.post("/api/assistants", { name: "Elsewhere", type: "employee_personal" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await server.db.assistant.findUniqueOrThrow({ where: { id: created.body.assistant._id } })).orgId).toBe(otherOrg);
  });

  it("lets anyone remove themselves, an owner too while another owner remains", async () => {
    const orgId = await server.newOrg();
    const member = await server.signedIn(orgId, "member");
    const first = await server.signedIn(orgId, "owner");
    const second = await server.signedIn(orgId, "owner");
    expect((await member.delete(`/api/organization/members/${member.userId}`)).status).toBe(200);
    expect((await first.delete(`/api/organization/members/${first.userId}`)).status).toBe(200);
    expectApiFailure(await second.delete(`/api/organization/members/${second.userId}`), 409, "last_owner");
    expect((await members(orgId)).map((m) => [m.userId, m.role])).toEqual([[second.userId, "owner"]]);
  });

  it("answers 404 member_not_found for someone who is not a member here", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const outsider = await server.newPerson(await server.newOrg(), "member");
    expectApiFailure(await owner.delete(`/api/organization/members/${outsider.userId}`), 404, "member_not_found");
    expectApiFailure(await owner.patch(`/api/organization/members/${outsider.userId}`, { role: "admin" }), 404, "member_not_found");
    expectApiFailure(await owner.delete("/api/organization/members/usr_nobody"), 404, "member_not_found");
    expect(await roleOf(await server.db.membership.findFirstOrThrow({ where: { userId: outsider.userId } }).then((m) => m.orgId), outsider.userId)).toBe("member");
  });
});
