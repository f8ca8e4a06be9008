import { request } from "node:http";
import type { TTier } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SessionClient, startTestServer, type TestServer } from "@engram/test-support";

/**
 * The capability registry and an assistant's capabilities through the /api routes, over real HTTP with a
 * signed-in browser's cookies. The expected registry is written out here, not read from the server's module,
 * so a change to the registry has to be made on purpose in both places.
 */

type Scope = "organization" | "user" | "both";
/** id: category, scope, tier requirement, config field names, in display order. */
const REGISTRY: Array<[string, string, Scope, TTier, string[]]> = [
  ["answer_questions", "Knowledge", "both", "free", []],
  ["search_memory", "Knowledge", "both", "free", ["maxMemories"]],
  ["cite_sources", "Knowledge", "both", "free", []],
  ["summarize_documents", "Knowledge", "both", "free", []],
  ["onboard_new_hires", "Knowledge", "organization", "free", []],
  ["draft_messages", "Communication", "user", "free", []],
  ["summarize_threads", "Communication", "both", "spark", ["maxMessages"]],
  ["translate_messages", "Communication", "both", "spark", ["targetLanguages"]],
  ["post_announcements", "Communication", "organization", "seed", ["channels", "requireApproval"]],
  ["track_tasks", "Productivity", "user", "free", []],
  ["take_meeting_notes", "Productivity", "both", "spark", []],
  ["schedule_meetings", "Productivity", "user", "seed", ["maxMeetingMinutes", "addVideoLink"]],
  ["daily_briefing", "Productivity", "user", "rise", ["sendAtHour", "includeCalendar"]],
  ["explain_code", "Engineering", "both", "spark", []],
  ["summarize_incidents", "Engineering", "organization", "seed", []],
  ["review_pull_requests", "Engineering", "organization", "rise", ["repositories", "maxFilesPerReview"]],
  ["triage_alerts", "Engineering", "organization", "boost", ["services", "autoAcknowledge"]],
  ["route_requests", "Support", "organization", "free", []],
  ["draft_ticket_replies", "Support", "organization", "rise", ["queues", "maxDraftsPerHour"]],
  ["escalate_tickets", "Support", "organization", "boost", ["escalateAfterMinutes", "notifyOnCall"]],
];
const TIERS: TTier[] = ["free", "spark", "seed", "rise", "boost"];
const ENTRY_KEYS = ["alwaysEnabled", "category", "configFields", "description", "id", "name", "requiresConfig", "scope", "tierRequirement"];
const FAILURE_KEYS = ["error", "message", "success"];

const ids = (entries: Array<{ id: string }>) => entries.map((entry) => entry.id);
const expectedIds = (keep: (row: (typeof REGISTRY)[number]) => boolean) => REGISTRY.filter(keep).map(([id]) => id);
const forType = (type: "org_shared" | "employee_personal") => (scope: Scope) => scope === "both" || (type === "org_shared" ? scope === "organization" : scope === "user");
const withinTier = (tier: TTier, requirement: TTier) => TIERS.indexOf(requirement) <= TIERS.indexOf(tier);

/** The server's clock, moved by the tests so change times can be checked exactly. */
let clock = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off", now: () => clock });
});
afterAll(() => server?.stop());

/**
 * A conditional GET as a browser revalidating its cache sends it. Not through fetch, which marks such a request
 * Cache-Control: no-cache, so the server would never answer 304 anyway.
 */
function revalidate(client: SessionClient, path: string, etag: string): Promise<{ status: number; body: string }> {
  return client.jar.getCookieString(client.baseUrl + path).then(
    (cookie) =>
      new Promise((resolve, reject) => {
        const req = request(client.baseUrl + path, { headers: { cookie, "if-none-match": etag } }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, body }));
        });
        req.on("error", reject).end();
      }),
  );
}

async function createAssistant(client: SessionClient, type: "org_shared" | "employee_personal", name = `Helper ${type}`) {
  const res = await client.post("/api/assistants", { name, type });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.assistant as { _id: string; version: number; ownerUserId: string | null };
}

describe("GET /api/capabilities/registry", () => {
  it("lists every capability with exactly its documented fields, grouped by scope, total the count", async () => {
    const client = await server.signedIn(await server.newOrg(), "member");
    const res = await client.get("/api/capabilities/registry");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["capabilities", "grouped", "success", "total"]);
    expect(res.body.success).toBe(true);
    expect(ids(res.body.capabilities)).toEqual(REGISTRY.map(([id]) => id));
    expect(res.body.total).toBe(REGISTRY.length);
    expect(res.body.total).toBe(res.body.capabilities.length);
    for (const [index, [id, category, scope, tierRequirement, configFields]] of REGISTRY.entries()) {
      const entry = res.body.capabilities[index];
      expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS);
      expect(entry).toMatchObject({ id, category, scope, tierRequirement, configFields, requiresConfig: configFields.length > 0, alwaysEnabled: id === "answer_questions" });
      expect(entry.name.length).toBeGreaterThan(0);
      expect(entry.description.length).toBeGreaterThan(0);
    }
    expect(Object.keys(res.body.grouped).sort()).toEqual(["both", "organization", "user"]);
    for (const scope of ["organization", "user", "both"] as const) {
      expect(ids(res.body.grouped[scope])).toEqual(expectedIds(([, , s]) => s === scope));
    }
  });

  it("filters by assistant type: organization_wide is org_shared; employee_personal gets user and both", async () => {
    const client = await server.signedIn(await server.newOrg(), "member");
    const wide = await client.get("/api/capabilities/registry?assistantType=organization_wide");
    const shared = await client.get("/api/capabilities/registry?assistantType=org_shared");
    const personal = await client.get("/api/capabilities/registry?assistantType=employee_personal");
    expect([wide.status, shared.status, personal.status]).toEqual([200, 200, 200]);
    expect(wide.body).toEqual(shared.body);
    expect(ids(shared.body.capabilities)).toEqual(expectedIds(([, , scope]) => forType("org_shared")(scope)));
    expect(shared.body.grouped.user).toEqual([]);
    expect(shared.body.total).toBe(16);
    expect(ids(personal.body.capabilities)).toEqual(expectedIds(([, , scope]) => forType("employee_personal")(scope)));
    expect(personal.body.grouped.organization).toEqual([]);
    expect(personal.body.total).toBe(personal.body.capabilities.length);
    expect(personal.body.total).toBe(12);
  });

  it("filters by category, and by category and type together; an unknown category is empty", async () => {
    const client = await server.signedIn(await server.newOrg(), "member");
    const engineering = await client.get("/api/capabilities/registry?category=Engineering");
    expect(ids(engineering.body.capabilities)).toEqual(["explain_code", "summarize_incidents", "review_pull_requests", "triage_alerts"]);
    expect(engineering.body.total).toBe(4);
    const both = await client.get("/api/capabilities/registry?assistantType=employee_personal&category=Productivity");
    expect(ids(both.body.capabilities)).toEqual(["track_tasks", "take_meeting_notes", "schedule_meetings", "daily_briefing"]);
    expect(ids(both.body.grouped.user)).toEqual(["track_tasks", "schedule_meetings", "daily_briefing"]);
    expect(ids(both.body.grouped.both)).toEqual(["take_meeting_notes"]);
    const sharedSupport = await client.get("/api/capabilities/registry?assistantType=organization_wide&category=Productivity");
    expect(ids(sharedSupport.body.capabilities)).toEqual(["take_meeting_notes"]);
    const unknown = await client.get("/api/capabilities/registry?category=Astrology");
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ success: true, capabilities: [], grouped: { organization: [], user: [], both: [] }, total: 0 });
  });

  it("refuses an unknown assistant type or query parameter in the /api failure shape", async () => {
    const client = await server.signedIn(await server.newOrg(), "member");
    const res = await client.get("/api/capabilities/registry?assistantType=robot");
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(FAILURE_KEYS);
    expect(res.body).toMatchObject({ success: false, error: "invalid_parameter" });
    const extra = await client.get("/api/capabilities/registry?colour=blue");
    expect(extra.status).toBe(400);
    expect(extra.body).toMatchObject({ success: false, error: "unknown_parameter" });
  });
});

describe("GET /api/capabilities/registry/:capabilityId", () => {
  it("answers the entry and the type and bounds of each config field", async () => {
    const client = await server.signedIn(await server.newOrg(), "member");
    const res = await client.get("/api/capabilities/registry/review_pull_requests");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["capability", "configFields", "success"]);
    expect(res.body.capability).toMatchObject({ id: "review_pull_requests", scope: "organization", tierRequirement: "rise", configFields: ["repositories", "maxFilesPerReview"] });
    expect(res.body.configFields).toEqual([
      { name: "repositories", type: "string_list", description: expect.any(String), maxItems: 50, maxItemLength: 140 },
      { name: "maxFilesPerReview", type: "integer", description: expect.any(String), min: 1, max: 200 },
    ]);
    const boolean = await client.get("/api/capabilities/registry/escalate_tickets");
    expect(boolean.body.configFields.map((field: { name: string; type: string }) => [field.name, field.type])).toEqual([
      ["escalateAfterMinutes", "integer"],
      ["notifyOnCall", "boolean"],
    ]);
    const plain = await client.get("/api/capabilities/registry/cite_sources");
    expect(plain.body.configFields).toEqual([]);
    expect(plain.body.capability.requiresConfig).toBe(false);
  });

  it("answers 404 capability_not_found for an unknown id, including inherited property names", async () => {
    const client = await server.signedIn(await server.newOrg(), "member");
    for (const id of ["fly_to_the_moon", "__proto__", "constructor"]) {
      const res = await client.get(`/api/capabilities/registry/${id}`);
      expect(res.status).toBe(404);
      expect(Object.keys(res.body).sort()).toEqual(FAILURE_KEYS);
      expect(res.body).toMatchObject({ success: false, error: "capability_not_found" });
    }
  });
});

describe("an assistant's capabilities", () => {
  it("a new assistant has answer_questions only, with an ETag that is its version", async () => {
    const owner = await server.signedIn(await server.newOrg(), "owner");
    const assistant = await createAssistant(owner, "org_shared");
    expect(assistant.version).toBe(1);
    const res = await owner.get(`/api/assistants/${assistant._id}/capabilities`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, capabilities: ["answer_questions"], capabilityCount: 1, capabilityConfigs: {} });
    expect(res.headers.get("etag")).toBe('"1"');
  });

  it("PATCH answers exactly {success, assistant{_id,name,type,capabilities,capabilityConfigs}, message}, answer_questions added first", async () => {
    const owner = await server.signedIn(await server.newOrg({ plan: "seed" }), "owner");
    const assistant = await createAssistant(owner, "org_shared", "Front desk");
    const res = await owner.patch(`/api/assistants/${assistant._id}/capabilities`, {
      capabilities: ["route_requests", "search_memory"],
      capabilityConfigs: { search_memory: { maxMemories: 4 } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["assistant", "message", "success"]);
    expect(res.body.success).toBe(true);
    expect(res.body.assistant).toStrictEqual({
      _id: assistant._id,
      name: "Front desk",
      type: "org_shared",
      capabilities: ["answer_questions", "route_requests", "search_memory"],
      capabilityConfigs: { search_memory: { maxMemories: 4 } },
    });
    expect(typeof res.body.message).toBe("string");
    expect(res.headers.get("etag")).toBe('"2"');

    // answer_questions listed last is still put first, once.
    const reordered = await owner.patch(`/api/assistants/${assistant._id}/capabilities`, { capabilities: ["cite_sources", "answer_questions"] });
    expect(reordered.body.assistant.capabilities).toEqual(["answer_questions", "cite_sources"]);
    expect(reordered.body.assistant.capabilityConfigs).toEqual({});

    const read = await owner.get(`/api/assistants/${assistant._id}/capabilities`);
    expect(read.body).toEqual({ success: true, capabilities: ["answer_questions", "cite_sources"], capabilityCount: 2, capabilityConfigs: {} });
    expect(read.headers.get("etag")).toBe('"3"');
  });

  it("an empty list leaves answer_questions enabled", async () => {
    const owner = await server.signedIn(await server.newOrg(), "owner");
    const assistant = await createAssistant(owner, "employee_personal");
    await owner.patch(`/api/assistants/${assistant._id}/capabilities`, { capabilities: ["track_tasks"] });
    const res = await owner.patch(`/api/assistants/${assistant._id}/capabilities`, { capabilities: [] });
    expect(res.status).toBe(200);
    expect(res.body.assistant.capabilities).toEqual(["answer_questions"]);
  });
});

describe("GET /api/assistants/:id/available-capabilities", () => {
  const LIMITS: Record<TTier, number> = { free: 3, spark: 3, seed: 7, rise: 7, boost: REGISTRY.length };

  for (const tier of TIERS) {
    it(`on the ${tier} tier: what the assistant's type and the tier allow, by category, with the limit`, async () => {
      const owner = await server.signedIn(await server.newOrg({ plan: tier }), "owner");
      for (const type of ["org_shared", "employee_personal"] as const) {
        const assistant = await createAssistant(owner, type);
        const res = await owner.get(`/api/assistants/${assistant._id}/available-capabilities`);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(["capabilities", "capabilityLimit", "currentCapabilities", "grouped", "organizationTier", "success"]);
        const allowed = REGISTRY.filter(([, , scope, requirement]) => forType(type)(scope) && withinTier(tier, requirement));
        expect(ids(res.body.capabilities)).toEqual(allowed.map(([id]) => id));
        const byCategory: Record<string, string[]> = {};
        for (const [id, category] of allowed) (byCategory[category] ??= []).push(id);
        expect(Object.fromEntries(Object.entries(res.body.grouped).map(([category, entries]) => [category, ids(entries as Array<{ id: string }>)]))).toEqual(byCategory);
        for (const entry of res.body.capabilities) expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS);
        expect(res.body.organizationTier).toBe(tier);
        expect(res.body.currentCapabilities).toEqual(["answer_questions"]);
        expect(res.body.capabilityLimit).toBe(LIMITS[tier]);
      }
    });
  }

  it("is not answered 304 from a cached copy after the organization's plan changed", async () => {
    const orgId = await server.newOrg({ plan: "free" });
    const owner = await server.signedIn(orgId, "owner");
    const assistant = await createAssistant(owner, "org_shared");
    const path = `/api/assistants/${assistant._id}/available-capabilities`;
    const first = await owner.get(path);
    expect(first.body.organizationTier).toBe("free");
    const cached = first.headers.get("etag");
    expect(cached).not.toBeNull();
    // A browser revalidates its cached copy with If-None-Match; the copy still holds while nothing changed.
    expect((await revalidate(owner, path, cached!)).status).toBe(304);

    await server.db.organization.update({ where: { id: orgId }, data: { plan: "boost" } });
    const after = await revalidate(owner, path, cached!);
    expect(after.status).toBe(200);
    expect(JSON.parse(after.body)).toMatchObject({ organizationTier: "boost", capabilityLimit: REGISTRY.length });

    // Its ETag still names the assistant's version for a PATCH that follows.
    const latest = (await owner.get(path)).headers.get("etag")!;
    const patched = await owner.patch(`/api/assistants/${assistant._id}/capabilities`, { capabilities: ["triage_alerts"], capabilityConfigs: { triage_alerts: { services: ["db"], autoAcknowledge: true } } }, { headers: { "if-match": latest } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const stale = await owner.patch(`/api/assistants/${assistant._id}/capabilities`, { capabilities: [] }, { headers: { "if-match": latest } });
    expect(stale.status).toBe(412);
  });

  it("reports the current capabilities after a change", async () => {
    const owner = await server.signedIn(await server.newOrg(), "owner");
    const assistant = await createAssistant(owner, "employee_personal");
    await owner.patch(`/api/assistants/${assistant._id}/capabilities`, { capabilities: ["track_tasks", "draft_messages"] });
    const res = await owner.get(`/api/assistants/${assistant._id}/available-capabilities`);
    expect(res.body.currentCapabilities).toEqual(["answer_questions", "track_tasks", "draft_messages"]);
  });
});

describe("assistants: create, list, rename, delete, and the change log", () => {
  it("records who changed what, before and after, and when; a deleted assistant is gone but its log is kept", async () => {
    const orgId = await server.newOrg({ plan: "spark" });
    const owner = await server.signedIn(orgId, "owner");
    const admin = await server.signedIn(orgId, "admin");
    const start = new Date(clock);

    const created = await owner.post("/api/assistants", { name: "  Helpdesk  ", type: "org_shared" });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(["assistant", "success"]);
    const id = created.body.assistant._id;
    expect(created.body.assistant).toStrictEqual({
      _id: id,
      name: "Helpdesk",
      type: "org_shared",
      capabilities: ["answer_questions"],
      capabilityConfigs: {},
      ownerUserId: null,
      version: 1,
      createdAt: start.toISOString(),
      updatedAt: start.toISOString(),
    });
    expect(created.headers.get("etag")).toBe('"1"');

    const listed = await admin.get("/api/assistants");
    expect(listed.status).toBe(200);
    expect(listed.body.assistants).toEqual([created.body.assistant]);

    clock = new Date(clock.getTime() + 60_000);
    const renamedAt = new Date(clock);
    const renamed = await admin.patch(`/api/assistants/${id}`, { name: "Service desk" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.assistant).toMatchObject({ name: "Service desk", version: 2, updatedAt: renamedAt.toISOString(), createdAt: start.toISOString() });
    expect(renamed.headers.get("etag")).toBe('"2"');

    clock = new Date(clock.getTime() + 60_000);
    const changedAt = new Date(clock);
    const patched = await owner.patch(`/api/assistants/${id}/capabilities`, { capabilities: ["cite_sources"] });
    expect(patched.status).toBe(200);

    const changes = await owner.get(`/api/assistants/${id}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.body.changes).toEqual([
      {
        id: expect.any(String),
        action: "capabilities_changed",
        actor: `user:${owner.email}`,
        actorUserId: owner.userId,
        before: { capabilities: ["answer_questions"], capabilityConfigs: {} },
        after: { capabilities: ["answer_questions", "cite_sources"], capabilityConfigs: {} },
        version: 3,
        createdAt: changedAt.toISOString(),
      },
      {
        id: expect.any(String),
        action: "renamed",
        actor: `user:${admin.email}`,
        actorUserId: admin.userId,
        before: { name: "Helpdesk" },
        after: { name: "Service desk" },
        version: 2,
        createdAt: renamedAt.toISOString(),
      },
      {
        id: expect.any(String),
        action: "created",
        actor: `user:${owner.email}`,
        actorUserId: owner.userId,
        before: null,
        after: { name: "Helpdesk", type: "org_shared", capabilities: ["answer_questions"], capabilityConfigs: {} },
        version: 1,
        createdAt: start.toISOString(),
      },
    ]);

    clock = new Date(clock.getTime() + 60_000);
    const deletedAt = new Date(clock);
    const deleted = await admin.delete(`/api/assistants/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });

    for (const path of [`/api/assistants/${id}/capabilities`, `/api/assistants/${id}/available-capabilities`]) {
      const gone = await owner.get(path);
      expect(gone.status, path).toBe(404);
      expect(gone.body).toMatchObject({ success: false, error: "assistant_not_found" });
    }
    // The log outlives the assistant for those who oversee the organization; to a member it is gone.
    const kept = await owner.get(`/api/assistants/${id}/changes`);
    expect(kept.status).toBe(200);
    expect(kept.body.changes.map((change: { action: string }) => change.action)).toEqual(["deleted", "capabilities_changed", "renamed", "created"]);
    const member = await server.signedIn(orgId, "member");
    expect((await member.get(`/api/assistants/${id}/changes`)).body).toMatchObject({ success: false, error: "assistant_not_found" });
    const again = await owner.delete(`/api/assistants/${id}`);
    expect(again.status).toBe(404);
    expect((await owner.get("/api/assistants")).body.assistants).toEqual([]);

    const rows = await server.db.assistantChange.findMany({ where: { assistantId: id }, orderBy: { createdAt: "asc" } });
    expect(rows.map((row) => row.action)).toEqual(["created", "renamed", "capabilities_changed", "deleted"]);
    const last = rows.at(-1)!;
    expect(last).toMatchObject({ actor: `user:${admin.email}`, actorUserId: admin.userId, orgId });
    expect(last.createdAt.toISOString()).toBe(deletedAt.toISOString());
    expect(JSON.parse(last.before!)).toEqual({ name: "Service desk", capabilities: ["answer_questions", "cite_sources"] });
  });

  it("pages the change log newest first, 20 at most a page, each page starting before the last version of the one before", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const { _id: id } = await createAssistant(owner, "org_shared", "Name 0");
    for (let i = 1; i <= 24; i++) expect((await owner.patch(`/api/assistants/${id}`, { name: `Name ${i}` })).status).toBe(200);

    const versions: number[][] = [];
    let cursor: string | null = null;
    do {
      const page: any = await owner.get(`/api/assistants/${id}/changes${cursor ? `?cursor=${cursor}` : ""}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      versions.push(page.body.changes.map((change: { version: number }) => change.version));
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = Array.from({ length: 25 }, (_, i) => 25 - i);
    expect(versions).toEqual([all.slice(0, 20), all.slice(20)]);
    const small = await owner.get(`/api/assistants/${id}/changes?limit=10&cursor=12`);
    expect(small.body.changes.map((change: { version: number }) => change.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    expect(small.body.nextCursor).toBe("2");
    expect((await owner.get(`/api/assistants/${id}/changes?cursor=1`)).body).toEqual({ success: true, changes: [], nextCursor: null });

    for (const query of ["limit=21", "limit=0", "cursor=0", "cursor=-1", "cursor=abc", "cursor=", `cursor=${"9".repeat(11)}`, "after=3"]) {
      const refused = await owner.get(`/api/assistants/${id}/changes?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error, query).toMatch(/^(invalid|unknown)_parameter$/);
    }
  });

  it("lists only what the person may see, oldest first; a personal assistant belongs to its creator", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const member = await server.signedIn(orgId, "member");
    const other = await server.signedIn(orgId, "member");
    const shared = await createAssistant(owner, "org_shared", "Shared");
    clock = new Date(clock.getTime() + 1000);
    const mine = await createAssistant(member, "employee_personal", "Mine");
    clock = new Date(clock.getTime() + 1000);
    const theirs = await createAssistant(other, "employee_personal", "Theirs");
    expect(mine.ownerUserId).toBe(member.userId);
    expect((await member.get("/api/assistants")).body.assistants.map((a: { _id: string }) => a._id)).toEqual([shared._id, mine._id]);
    expect((await owner.get("/api/assistants")).body.assistants.map((a: { _id: string }) => a._id)).toEqual([shared._id, mine._id, theirs._id]);
  });

  it("pages what the person may see, and answers one assistant they may see with its version as ETag", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const member = await server.signedIn(orgId, "member");
    const other = await server.signedIn(orgId, "member");
    const made: Array<{ _id: string; mine: boolean }> = [];
    for (let i = 0; i < 7; i++) {
      clock = new Date(clock.getTime() + 1000);
      const [maker, type] = i % 3 === 0 ? [owner, "org_shared" as const] : i % 3 === 1 ? [member, "employee_personal" as const] : [other, "employee_personal" as const];
      made.push({ _id: (await createAssistant(maker, type, `Assistant ${i}`))._id, mine: i % 3 !== 2 });
    }
    const pages = async (person: SessionClient) => {
      const seen: string[][] = [];
      let cursor: string | null = null;
      do {
        const page: any = await person.get(`/api/assistants?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        seen.push(page.body.assistants.map((a: { _id: string }) => a._id));
        cursor = page.body.nextCursor;
      } while (cursor);
      return seen;
    };
    // The member sees the shared ones and their own, in pages as full as those alone make.
    const visible = made.filter((a) => a.mine).map((a) => a._id);
    expect(await pages(member)).toEqual([visible.slice(0, 2), visible.slice(2, 4), visible.slice(4)]);
    expect((await pages(owner)).flat()).toEqual(made.map((a) => a._id));

    const one = await member.get(`/api/assistants/${made[1]!._id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ success: true, assistant: (await member.get("/api/assistants")).body.assistants[1] });
    expect(one.headers.get("etag")).toBe('"1"');
    expect((await member.get(`/api/assistants/${made[2]!._id}`)).body).toMatchObject({ success: false, error: "assistant_not_found" });
    expect((await owner.get(`/api/assistants/${made[2]!._id}`)).status).toBe(200);
    for (const query of ["limit=21", "limit=0", "cursor=abc"]) expect((await member.get(`/api/assistants?${query}`)).status, query).toBe(400);
  });

  it("refuses an empty or over-long name, and an unknown type", async () => {
    const owner = await server.signedIn(await server.newOrg(), "owner");
    for (const body of [{ name: "   ", type: "org_shared" }, { name: "x".repeat(101), type: "org_shared" }, { name: "A", type: "robot" }, { name: "A" }]) {
      const res = await owner.post("/api/assistants", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body).sort()).toEqual(FAILURE_KEYS);
      expect(res.body.success).toBe(false);
    }
    const assistant = await createAssistant(owner, "org_shared", "Kept");
    const rename = await owner.patch(`/api/assistants/${assistant._id}`, { name: "" });
    expect(rename.status).toBe(400);
    expect((await owner.get("/api/assistants")).body.assistants.map((a: { name: string }) => a.name)).toEqual(["Kept"]);
    expect(await server.db.assistantChange.count({ where: { assistantId: assistant._id } })).toBe(1);
  });
});
