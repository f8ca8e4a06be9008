import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { expectApiFailure } from "./sessions-support";

/**
 * The organization's settings and access tokens through the signed-in application: every member reads,
 * owners and admins change; a token made here is shown once and works on /v1 exactly as chosen.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

const storedOrg = (orgId: string) => server.db.organization.findUniqueOrThrow({ where: { id: orgId } });

describe("GET /api/organization", () => {
  it("shows the active organization and the reader's role to every member", async () => {
    const orgId = await server.newOrg({ plan: "seed" });
    for (const role of ["owner", "admin", "member"] as const) {
      const person = await server.signedIn(orgId, role);
      const res = await person.get("/api/organization");
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ success: true, role, organization: { id: orgId, plan: "seed", writeMode: "direct", founderWorkspace: false } });
    }
  });
});

describe("PATCH /api/organization", () => {
  it("lets owners and admins rename the organization", async () => {
    const orgId = await server.newOrg();
    for (const role of ["owner", "admin"] as const) {
      const person = await server.signedIn(orgId, role);
      const res = await person.patch("/api/organization", { name: `  Renamed by ${role}  ` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.organization.name).toBe(`Renamed by ${role}`);
      expect((await storedOrg(orgId)).name).toBe(`Renamed by ${role}`);
    }
  });

  it("allows candidate write mode on a paid plan and back to direct", async () => {
    const orgId = await server.newOrg({ plan: "spark" });
    const owner = await server.signedIn(orgId, "owner");
    const res = await owner.patch("/api/organization", { writeMode: "candidate" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.organization.writeMode).toBe("candidate");
    expect((await storedOrg(orgId)).writeMode).toBe("candidate");
    expect((await owner.patch("/api/organization", { writeMode: "direct" })).body.organization.writeMode).toBe("direct");
  });

  it("applies a new write mode to the very next write of a token already in use", async () => {
    const orgId = await server.newOrg({ plan: "spark" });
    const owner = await server.signedIn(orgId, "owner");
    const token = await server.newToken(orgId);
    const encode = async (text: string) => (await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text }) })).body.memory.state;
    // The first write verifies the token, which the server then trusts for a moment with the organization's settings.
    expect(await encode("Written before the switch.")).toBe("durable");
    expect((await owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
    expect(await encode("Written right after the switch.")).toBe("candidate");
  });

  it("refuses candidate write mode on the free plan and on founder workspaces with 400, changing nothing", async () => {
    const free = await server.newOrg({ plan: "free" });
    const founder = await server.newOrg({ plan: "rise", founderWorkspace: true });
    for (const orgId of [free, founder]) {
      const owner = await server.signedIn(orgId, "owner");
      const before = await storedOrg(orgId);
      expectApiFailure(await owner.patch("/api/organization", { writeMode: "candidate" }), 400, "invalid_parameter");
      // Refused as a whole: the name sent with it is not applied either.
      expectApiFailure(await owner.patch("/api/organization", { name: "Sneaky", writeMode: "candidate" }), 400, "invalid_parameter");
      expect(await storedOrg(orgId)).toEqual(before);
    }
  });

  it("refuses an empty name without applying the write mode sent with it", async () => {
    const orgId = await server.newOrg({ plan: "spark" });
    const owner = await server.signedIn(orgId, "owner");
    const before = await storedOrg(orgId);
    for (const name of ["", "   "]) {
      expectApiFailure(await owner.patch("/api/organization", { name, writeMode: "candidate" }), 400, "invalid_parameter");
    }
    expect(await storedOrg(orgId)).toEqual(before);
  });

  it("refuses bodies that change nothing or say something unknown", async () => {
    const orgId = await server.newOrg({ plan: "spark" });
    const owner = await server.signedIn(orgId, "owner");
    const before = await storedOrg(orgId);
    expectApiFailure(await owner.patch("/api/organization", {}), 400, "invalid_parameter");
    expectApiFailure(await owner.patch("/api/organization", { writeMode: "review" }), 400, "invalid_parameter");
    expectApiFailure(await owner.patch("/api/organization", { name: "x".repeat(101) }), 400, "invalid_parameter");
    expectApiFailure(await owner.patch("/api/organization", { name: "ok", plan: "boost" }), 400, "unknown_parameter");
    expect(await storedOrg(orgId)).toEqual(before);
  });

  it("answers a member 403 and changes nothing", async () => {
    const orgId = await server.newOrg({ plan: "spark" });
    const member = await server.signedIn(orgId, "member");
    const before = await storedOrg(orgId);
    expectApiFailure(await member.patch("/api/organization", { name: "Mine now" }), 403, "permission_denied");
    expectApiFailure(await member.patch("/api/organization", { writeMode: "candidate" }), 403, "permission_denied");
    expect(await storedOrg(orgId)).toEqual(before);
  });
});

describe("access tokens", () => {
  const retrieve = (token: string) => rawRequest(server.url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "deploy" }) });
  const encode = (token: string, text = "Deploys go out on Tuesdays.") => rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text }) });

  it("are created by owners and admins with 201; the secret works on /v1 with the chosen scopes and environment", async () => {
    const orgId = await server.newOrg();
    for (const role of ["owner", "admin"] as const) {
      const person = await server.signedIn(orgId, role);
      const res = await person.post("/api/organization/tokens", { name: `ci by ${role}`, scopes: ["memory:read", "memory:write"], environment: "staging" });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const { token, record } = res.body;
      expect(token).toMatch(/^acm_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({ name: `ci by ${role}`, scopes: ["memory:read", "memory:write"], environment: "staging", agents: null, revokedAt: null, prefix: token.slice(0, 12) });

      const encoded = await encode(token);
      expect(encoded.status, JSON.stringify(encoded.body)).toBe(201);
      expect(encoded.body.memory.environment).toBe("staging");
      expect((await retrieve(token)).status).toBe(200);
      // No memory:delete among the chosen scopes.
      const deleted = await rawRequest(server.url, `/v1/memory/${encoded.body.memory.id}`, { method: "DELETE", token });
      expect({ status: deleted.status, code: deleted.body.error?.code }).toEqual({ status: 403, code: "insufficient_scope" });
    }
  });

  it("keeps a read-only token to reading", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const { token } = (await owner.post("/api/organization/tokens", { name: "reader", scopes: ["memory:read"], environment: "production" })).body;
    expect((await retrieve(token)).status).toBe(200);
    const refused = await encode(token);
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 403, code: "insufficient_scope" });
    expect(await server.db.memory.count({ where: { orgId } })).toBe(0);
  });

  it("are listed to every member afterwards without the secret, only its prefix", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const created = await owner.post("/api/organization/tokens", { name: "listed", scopes: ["memory:read"], environment: "test", agents: ["billing-bot"] });
    const { token, record } = created.body;
    const member = await server.signedIn(orgId, "member");
    const listed = await member.get("/api/organization/tokens");
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.tokens).toEqual([record]);
    expect(listed.body.tokens[0]).toMatchObject({ prefix: token.slice(0, 12), agents: ["billing-bot"], environment: "test" });
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(12));
    expect(Object.keys(listed.body.tokens[0]).sort()).toEqual(["agents", "createdAt", "environment", "id", "name", "prefix", "revokedAt", "scopes"]);
  });

  it("are listed oldest first a page at a time, revoked ones included", async () => {
    const orgId = await server.newOrg();
    for (let i = 0; i < 5; i++) await server.newToken(orgId);
    const [revoked] = await server.db.accessToken.findMany({ where: { orgId }, take: 1 });
    await server.db.accessToken.update({ where: { id: revoked!.id }, data: { revokedAt: new Date() } });
    const member = await server.signedIn(orgId, "member");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await member.get(`/api/organization/tokens?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.tokens.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.tokens.map((token: { id: string }) => token.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const stored = await server.db.accessToken.findMany({ where: { orgId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    expect(seen).toEqual(stored.map((row) => row.id));
    expect(seen).toContain(revoked!.id);
    expect((await member.get("/api/organization/tokens")).body.nextCursor).toBeNull();
    expectApiFailure(await member.get("/api/organization/tokens?limit=101"), 400, "invalid_parameter");
  });

  it("stop working on /v1 at once when revoked through the application", async () => {
    const orgId = await server.newOrg();
    const admin = await server.signedIn(orgId, "admin");
    const { token, record } = (await admin.post("/api/organization/tokens", { name: "soon gone", scopes: ["memory:read"], environment: "production" })).body;
    // Used first, so the server has it in its cache of verified tokens.
    expect((await retrieve(token)).status).toBe(200);
    const revoked = await admin.delete(`/api/organization/tokens/${record.id}`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body).toEqual({ success: true });
    const refused = await retrieve(token);
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 401, code: "invalid_api_key" });
    const [listed] = (await admin.get("/api/organization/tokens")).body.tokens;
    expect(listed.revokedAt).not.toBeNull();
  });

  it("cannot be created or revoked by a member (403), and the token keeps working", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const { token, record } = (await owner.post("/api/organization/tokens", { name: "kept", scopes: ["memory:read"], environment: "production" })).body;
    const member = await server.signedIn(orgId, "member");
    expectApiFailure(await member.post("/api/organization/tokens", { name: "mine", scopes: ["memory:read"], environment: "production" }), 403, "permission_denied");
    expectApiFailure(await member.delete(`/api/organization/tokens/${record.id}`), 403, "permission_denied");
    expect(await server.db.accessToken.count({ where: { orgId } })).toBe(1);
    expect((await server.db.accessToken.findUniqueOrThrow({ where: { id: record.id } })).revokedAt).toBeNull();
    expect((await retrieve(token)).status).toBe(200);
  });

  it("of another organization are not found (404 token_not_found) and stay valid", async () => {
    const theirs = await server.newOrg();
    const theirOwner = await server.signedIn(theirs, "owner");
    const { token, record } = (await theirOwner.post("/api/organization/tokens", { name: "theirs", scopes: ["memory:read"], environment: "production" })).body;
    const mine = await server.newOrg();
    const owner = await server.signedIn(mine, "owner");
    expectApiFailure(await owner.delete(`/api/organization/tokens/${record.id}`), 404, "token_not_found");
    expectApiFailure(await owner.delete("/api/organization/tokens/tok_does_not_exist"), 404, "token_not_found");
    expect((await owner.get("/api/organization/tokens")).body.tokens).toEqual([]);
    expect((await server.db.accessToken.findUniqueOrThrow({ where: { id: record.id } })).revokedAt).toBeNull();
    expect((await retrieve(token)).status).toBe(200);
  });

  it("refuse invalid scopes, environments and names with 400 in the /api shape, storing nothing", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const valid = { name: "ok", scopes: ["memory:read"], environment: "production" };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...valid, scopes: ["memory:everything"] }, "invalid_parameter"],
      [{ ...valid, scopes: [] }, "invalid_parameter"],
      [{ ...valid, scopes: "memory:read" }, "invalid_parameter"],
      [{ ...valid, environment: "prod" }, "invalid_parameter"],
      [{ ...valid, environment: null }, "invalid_parameter"],
      [{ name: "ok", scopes: ["memory:read"] }, "missing_parameter"],
      [{ ...valid, name: "   " }, "invalid_parameter"],
      [{ ...valid, agents: ["Not A Slug"] }, "invalid_parameter"],
      // A token limited to no agent could never be used: leaving agents out is how to ask for the whole organization.
      [{ ...valid, agents: [] }, "invalid_parameter"],
      [{ ...valid, orgId: "org_other" }, "unknown_parameter"],
    ];
    for (const [body, code] of cases) expectApiFailure(await owner.post("/api/organization/tokens", body), 400, code);
    expect(await server.db.accessToken.count({ where: { orgId } })).toBe(0);
  });
});
