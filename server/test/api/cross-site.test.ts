import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionClient, type SessionRequest, type SessionResponse, startTestServer, type TestServer } from "@engram/test-support";
import { applicationWith, httpRequest } from "./sessions-support";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

type Proof = Pick<SessionRequest, "headers" | "proof">;

/** One kind of unsafe request, made by an owner in a fresh organization, and a check that it changed nothing. */
interface UnsafeRoute {
  name: string;
  status: number;
  prepare(server: TestServer): Promise<{ owner: SessionClient; send(proof: Proof): Promise<SessionResponse>; unchanged(): Promise<void> }>;
}

/**
 * An owner of `orgId` signed in as curl would (no Origin), which every server accepts whatever origins it
 * allows; their later requests send the server's own Origin unless a test says otherwise.
 */
async function ownerOf(on: TestServer, orgId: string) {
  const person = await on.newPerson(orgId, "owner");
  const owner = new SessionClient(on.url);
  expect((await owner.post("/api/auth/login", { email: person.email, password: person.password }, { proof: "none" })).status).toBe(200);
  return Object.assign(owner, person);
}

async function ownerWithAssistant(on: TestServer) {
  const orgId = await on.newOrg({ plan: "boost" });
  const owner = await ownerOf(on, orgId);
  const created = await owner.post("/api/assistants", { name: "Helpdesk", type: "org_shared" }, { proof: "csrf" });
  expect(created.status).toBe(201);
  return { orgId, owner, assistant: created.body.assistant as { _id: string; capabilities: string[] } };
}

const unsafeRoutes: UnsafeRoute[] = [
  {
    name: "POST /api/assistants",
    status: 201,
    async prepare(on) {
      const orgId = await on.newOrg();
      const owner = await ownerOf(on, orgId);
      return {
        owner,
        send: (proof) => owner.post("/api/assistants", { name: "Created", type: "org_shared" }, proof),
        unchanged: async () => expect(await on.db.assistant.count({ where: { orgId } })).toBe(0),
      };
    },
  },
  {
    name: "PATCH /api/assistants/:id/capabilities",
    status: 200,
    async prepare(on) {
      const { owner, assistant } = await ownerWithAssistant(on);
      const wanted = [...new Set([...assistant.capabilities, "cite_sources"])];
      expect(wanted).not.toEqual(assistant.capabilities);
      return {
        owner,
        send: (proof) => owner.patch(`/api/assistants/${assistant._id}/capabilities`, { capabilities: wanted }, proof),
        unchanged: async () => expect((await owner.get(`/api/assistants/${assistant._id}/capabilities`)).body.capabilities).toEqual(assistant.capabilities),
      };
    },
  },
  {
    name: "DELETE /api/assistants/:id",
    status: 200,
    async prepare(on) {
      const { owner, assistant } = await ownerWithAssistant(on);
      return {
        owner,
        send: (proof) => owner.delete(`/api/assistants/${assistant._id}`, proof),
        unchanged: async () => expect(await on.db.assistant.count({ where: { id: assistant._id } })).toBe(1),
      };
    },
  },
  {
    name: "PUT /api/auth/organization",
    status: 200,
    async prepare(on) {
      const orgId = await on.newOrg();
      const other = await on.newOrg();
      const owner = await ownerOf(on, orgId);
      await on.services.memberships.add(other, owner.userId, "member", "cli");
      return {
        owner,
        send: (proof) => owner.put("/api/auth/organization", { organizationId: other }, proof),
        unchanged: async () => expect((await owner.get("/api/auth/me")).body.activeOrganizationId).toBe(orgId),
      };
    },
  },
  {
    name: "POST /api/auth/logout",
    status: 200,
    async prepare(on) {
      const orgId = await on.newOrg();
      const owner = await ownerOf(on, orgId);
      return {
        owner,
        send: (proof) => owner.post("/api/auth/logout", {}, proof),
        unchanged: async () => {
          expect((await owner.get("/api/auth/me")).status).toBe(200);
          expect(await on.db.session.count({ where: { userId: owner.userId } })).toBe(1);
        },
      };
    },
  },
  {
    name: "POST /api/organization/tokens",
    status: 201,
    async prepare(on) {
      const orgId = await on.newOrg();
      const owner = await ownerOf(on, orgId);
      return {
        owner,
        send: (proof) => owner.post("/api/organization/tokens", { name: "ci", scopes: ["memory:read"], environment: "production" }, proof),
        unchanged: async () => expect(await on.db.accessToken.count({ where: { orgId } })).toBe(0),
      };
    },
  },
];

const crossSite = { status: 403, body: { success: false, error: "cross_site_request", message: expect.any(String) } };

describe.each(unsafeRoutes)("$name", (route) => {
  const refusals: Array<[string, (owner: SessionClient) => Proof]> = [
    ["a foreign Origin", () => ({ headers: { origin: "https://evil.example" } })],
    ["our host on another port", () => ({ headers: { origin: "http://127.0.0.1:1" } })],
    ["Origin: null (a sandboxed frame, a data: page)", () => ({ headers: { origin: "null" } })],
    ["Sec-Fetch-Site: cross-site, even with the right token", (owner) => ({ proof: "csrf", headers: { "sec-fetch-site": "cross-site", "x-csrf-token": owner.csrfToken! } })],
    ["Sec-Fetch-Site: cross-site beside our own Origin", () => ({ headers: { "sec-fetch-site": "cross-site" } })],
    ["neither an Origin nor an X-CSRF-Token", () => ({ proof: "none" })],
    ["no Origin and a wrong X-CSRF-Token", () => ({ proof: "none", headers: { "x-csrf-token": "not-the-token" } })],
    ["no Origin and an empty X-CSRF-Token", () => ({ proof: "none", headers: { "x-csrf-token": "" } })],
  ];

  it.each(refusals)("is refused (403 cross_site_request, nothing changed) with %s", async (_what, proofOf) => {
    const { owner, send, unchanged } = await route.prepare(server);
    const res = await send(proofOf(owner));
    expect(res).toMatchObject(crossSite);
    await unchanged();
  });

  it("succeeds without an Origin when the X-CSRF-Token is the session's", async () => {
    const { send } = await route.prepare(server);
    expect((await send({ proof: "csrf" })).status).toBe(route.status);
  });

  it("succeeds from our own Origin", async () => {
    const { send } = await route.prepare(server);
    expect((await send({ proof: "origin" })).status).toBe(route.status);
  });
});

describe("with configured application origins", () => {
  const consoleOrigin = "https://console.example.com";
  let configured: TestServer;
  beforeAll(async () => {
    configured = await startTestServer({ application: applicationWith({ allowedOrigins: [consoleOrigin] }) });
  });
  afterAll(() => configured?.stop());

  it.each(unsafeRoutes)("$name: the configured Origin works and the server's own host does not", async (route) => {
    const refused = await route.prepare(configured);
    expect(await refused.send({ proof: "origin" })).toMatchObject(crossSite);
    await refused.unchanged();
    const allowed = await route.prepare(configured);
    expect((await allowed.send({ headers: { origin: consoleOrigin } })).status).toBe(route.status);
  });

  it("signs in from the configured Origin only", async () => {
    const orgId = await configured.newOrg();
    const person = await configured.newPerson(orgId);
    const credentials = { email: person.email, password: person.password };
    const browser = new SessionClient(configured.url);
    expect(await browser.post("/api/auth/login", credentials)).toMatchObject(crossSite);
    expect((await browser.post("/api/auth/login", credentials, { headers: { origin: consoleOrigin } })).status).toBe(200);
  });
});

describe("safe requests and signing in", () => {
  it("GET requests need neither an Origin nor a token, and grant no other site a reading", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    for (const path of ["/api/auth/me", "/api/assistants", "/api/organization", "/api/organization/tokens"]) {
      const plain = await owner.get(path);
      expect(plain.status, path).toBe(200);
      const foreign = await owner.get(path, { headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } });
      expect(foreign.status, path).toBe(200);
      // No CORS grant: the foreign page's script cannot read what its browser received.
      expect(foreign.headers.get("access-control-allow-origin"), path).toBeNull();
    }
  });

  it("refuses signing in from a foreign Origin and accepts it without one (curl)", async () => {
    const orgId = await server.newOrg();
    const person = await server.newPerson(orgId);
    const credentials = { email: person.email, password: person.password };
    const browser = new SessionClient(server.url);
    expect(await browser.post("/api/auth/login", credentials, { headers: { origin: "https://evil.example" } })).toMatchObject(crossSite);
    expect(await browser.post("/api/auth/login", credentials, { headers: { origin: "null" } })).toMatchObject(crossSite);
    expect(await browser.sessionCookie()).toBeNull();
    expect((await browser.post("/api/auth/login", credentials, { proof: "none" })).status).toBe(200);
  });

  it("accepts signing in again without an Origin from a client that still holds a session cookie (curl with a cookie jar)", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    const before = await browser.sessionCookie();
    const again = await browser.post("/api/auth/login", { email: browser.email, password: browser.password }, { proof: "none" });
    expect(again.status).toBe(200);
    expect(await browser.sessionCookie()).not.toBe(before);
  });

  it("judges the Origin against the Host the request was sent to", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const cookie = `engram_session=${await owner.sessionCookie()}`;
    const create = (headers: Record<string, string>) =>
      httpRequest(server.url, "/api/assistants", { method: "POST", headers: { cookie, ...headers }, body: { name: "Via proxy", type: "org_shared" } });
    // A page of engram.example.com, served through a proxy that keeps the Host: the same site.
    expect((await create({ host: "engram.example.com", origin: "https://engram.example.com" })).status).toBe(201);
    // The loopback origin sent to another Host is not.
    expect((await create({ host: "engram.example.com", origin: new URL(server.url).origin })).status).toBe(403);
  });
});
