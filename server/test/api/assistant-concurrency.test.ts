import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionClient, startServerProcess, startTestServer, type TestServer } from "@engram/test-support";
import { expectApiFailure } from "./sessions-support";

/**
 * Concurrent changes to one assistant: a change based on an older version is refused, never applied over
 * another; every accepted change has exactly one change-log row and raises the version by one.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

const SEARCH = { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 2 } } };
const CITE = { capabilities: ["cite_sources"] };

async function sharedAssistant() {
  const orgId = await server.newOrg({ plan: "boost" });
  const owner = await server.signedIn(orgId, "owner");
  const admin = await server.signedIn(orgId, "admin");
  const res = await owner.post("/api/assistants", { name: "Contended", type: "org_shared" });
  expect(res.status).toBe(201);
  return { orgId, owner, admin, id: res.body.assistant._id as string };
}

async function storedState(id: string) {
  const row = await server.db.assistant.findUniqueOrThrow({ where: { id } });
  const changes = await server.db.assistantChange.findMany({ where: { assistantId: id }, orderBy: { version: "asc" } });
  return { version: row.version, capabilities: JSON.parse(row.capabilities) as string[], changes };
}

describe("If-Match: the version read", () => {
  it("of two concurrent PATCHes with the same If-Match, one wins and the other answers 412; repeated", async () => {
    const { owner, admin, id } = await sharedAssistant();
    for (let round = 0; round < 5; round += 1) {
      const read = await owner.get(`/api/assistants/${id}/capabilities`);
      const etag = read.headers.get("etag")!;
      const before = await storedState(id);
      expect(etag).toBe(`"${before.version}"`);

      const [first, second] = await Promise.all([
        owner.patch(`/api/assistants/${id}/capabilities`, SEARCH, { headers: { "if-match": etag } }),
        admin.patch(`/api/assistants/${id}/capabilities`, CITE, { headers: { "if-match": etag } }),
      ]);
      const statuses = [first.status, second.status].sort();
      expect(statuses, JSON.stringify([first.body, second.body])).toEqual([200, 412]);
      const [winner, loser] = first.status === 200 ? [first, second] : [second, first];
      expect(loser.body).toMatchObject({ success: false, error: "precondition_failed" });
      expect(Object.keys(loser.body).sort()).toEqual(["error", "message", "success"]);

      const after = await storedState(id);
      expect(after.version).toBe(before.version + 1);
      expect(after.capabilities).toEqual(winner.body.assistant.capabilities);
      expect(winner.headers.get("etag")).toBe(`"${after.version}"`);
      expect(after.changes).toHaveLength(before.changes.length + 1);
      const row = after.changes.at(-1)!;
      expect(row.version).toBe(after.version);
      expect(JSON.parse(row.after).capabilities).toEqual(winner.body.assistant.capabilities);
      expect(row.actorUserId).toBe(winner === first ? owner.userId : admin.userId);
    }
  });

  it("a stale If-Match after a completed change answers 412 and changes nothing", async () => {
    const { owner, id } = await sharedAssistant();
    const etag = (await owner.get(`/api/assistants/${id}/capabilities`)).headers.get("etag")!;
    expect((await owner.patch(`/api/assistants/${id}/capabilities`, CITE, { headers: { "if-match": etag } })).status).toBe(200);
    const before = await storedState(id);
    for (const send of [
      () => owner.patch(`/api/assistants/${id}/capabilities`, SEARCH, { headers: { "if-match": etag } }),
      () => owner.patch(`/api/assistants/${id}`, { name: "Stale" }, { headers: { "if-match": etag } }),
      () => owner.delete(`/api/assistants/${id}`, { headers: { "if-match": etag } }),
    ]) {
      const res = await send();
      expect(res.status).toBe(412);
      expect(res.body).toMatchObject({ success: false, error: "precondition_failed" });
    }
    expect(await storedState(id)).toEqual(before);
    // The current ETag works.
    const current = `"${before.version}"`;
    expect((await owner.patch(`/api/assistants/${id}`, { name: "Fresh" }, { headers: { "if-match": current } })).status).toBe(200);
  });

  it("an If-Match that names no version is refused, not ignored", async () => {
    const { owner, id } = await sharedAssistant();
    for (const ifMatch of ["garbage", '"1", "2"', '"99999999999"', '""', '"1', '1"', "**"]) {
      const res = await owner.patch(`/api/assistants/${id}/capabilities`, CITE, { headers: { "if-match": ifMatch } });
      expect(res.status, ifMatch).toBe(412);
    }
    expect((await storedState(id)).version).toBe(1);
    // `*` asks only that it exists.
    expect((await owner.patch(`/api/assistants/${id}/capabilities`, CITE, { headers: { "if-match": "*" } })).status).toBe(200);
    const random = `asst_${"0".repeat(32)}`;
    expect((await owner.patch(`/api/assistants/${random}/capabilities`, CITE, { headers: { "if-match": "*" } })).status).toBe(404);
    // Unquoted and weak forms name a version too.
    expect((await owner.patch(`/api/assistants/${id}`, { name: "At 2" }, { headers: { "if-match": "2" } })).status).toBe(200);
    expect((await owner.patch(`/api/assistants/${id}`, { name: "At 3" }, { headers: { "if-match": 'W/"3"' } })).status).toBe(200);
    expect((await owner.patch(`/api/assistants/${id}`, { name: "Stale" }, { headers: { "if-match": '"3"' } })).status).toBe(412);
  });
});

describe("without If-Match", () => {
  it("concurrent PATCHes each succeed or answer 409 edit_conflict; nothing is lost silently", async () => {
    const { owner, admin, id } = await sharedAssistant();
    const clients = [owner, admin, owner, admin, owner, admin];
    const bodies = [SEARCH, CITE, { capabilities: ["explain_code"] }, { capabilities: ["route_requests"] }, { capabilities: ["summarize_documents"] }, CITE];
    for (let round = 0; round < 3; round += 1) {
      const before = await storedState(id);
      const results = await Promise.all(clients.map((client, i) => client.patch(`/api/assistants/${id}/capabilities`, bodies[i])));
      for (const res of results) {
        expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
        if (res.status === 409) expect(res.body).toMatchObject({ success: false, error: "edit_conflict" });
      }
      const successes = results.filter((res) => res.status === 200);
      expect(successes.length).toBeGreaterThanOrEqual(1);
      const after = await storedState(id);
      expect(after.changes.length - before.changes.length).toBe(successes.length);
      expect(after.version).toBe(before.version + successes.length);
      // Each success was the change from one version to the next, recorded once: versions are consecutive.
      const newRows = after.changes.slice(before.changes.length);
      expect(newRows.map((row) => row.version)).toEqual(successes.map((_, i) => before.version + 1 + i));
      expect(successes.map((res) => res.headers.get("etag")).sort()).toEqual(newRows.map((row) => `"${row.version}"`).sort());
      // Each row's before is the previous row's after: no change was based on a state another overwrote.
      for (let i = 1; i < newRows.length; i += 1) {
        expect(JSON.parse(newRows[i]!.before!).capabilities).toEqual(JSON.parse(newRows[i - 1]!.after).capabilities);
      }
      expect(after.capabilities).toEqual(JSON.parse(newRows.at(-1)!.after).capabilities);
    }
  });

  it("a rename racing a capabilities change: both recorded, or one refused", async () => {
    const { owner, admin, id } = await sharedAssistant();
    const [rename, patch] = await Promise.all([owner.patch(`/api/assistants/${id}`, { name: "Raced" }), admin.patch(`/api/assistants/${id}/capabilities`, CITE)]);
    const ok = [rename, patch].filter((res) => res.status === 200).length;
    for (const res of [rename, patch]) expect([200, 409]).toContain(res.status);
    const after = await storedState(id);
    expect(after.version).toBe(1 + ok);
    expect(after.changes).toHaveLength(1 + ok);
    const row = await server.db.assistant.findUniqueOrThrow({ where: { id } });
    expect(row.name).toBe(rename.status === 200 ? "Raced" : "Contended");
    expect(after.capabilities).toEqual(patch.status === 200 ? ["answer_questions", "cite_sources"] : ["answer_questions"]);
  });

  it("a delete racing a change: the assistant is gone or changed, with the log to match", async () => {
    const { owner, admin, id } = await sharedAssistant();
    const [deleted, patched] = await Promise.all([owner.delete(`/api/assistants/${id}`), admin.patch(`/api/assistants/${id}/capabilities`, CITE)]);
    expect(deleted.status === 200 || patched.status === 200).toBe(true);
    const row = await server.db.assistant.findUnique({ where: { id } });
    const actions = (await server.db.assistantChange.findMany({ where: { assistantId: id }, orderBy: { createdAt: "asc" } })).map((c) => c.action);
    if (deleted.status === 200) {
      expect(row).toBeNull();
      expect(actions.at(-1)).toBe("deleted");
    } else {
      expect([404, 409]).toContain(deleted.status);
      expect(row).not.toBeNull();
    }
    expect(actions.filter((a) => a === "capabilities_changed")).toHaveLength(patched.status === 200 ? 1 : 0);
    // A change that lost to the deletion answers as it would after it, on either database.
    if (patched.status !== 200) expect(patched.status).toBe(deleted.status === 200 ? 404 : 409);
  });

  it("concurrent deletes: one succeeds, the others answer 404 as after it, on either database", async () => {
    for (let round = 0; round < 3; round += 1) {
      const { owner, admin, id } = await sharedAssistant();
      const results = await Promise.all([owner, admin, owner, admin].map((client) => client.delete(`/api/assistants/${id}`)));
      expect(results.map((res) => res.status).sort(), JSON.stringify(results.map((res) => res.body))).toEqual([200, 404, 404, 404]);
      for (const res of results.filter((res) => res.status === 404)) expectApiFailure(res, 404, "assistant_not_found");
      const actions = (await server.db.assistantChange.findMany({ where: { assistantId: id } })).map((c) => c.action);
      expect(actions.filter((a) => a === "deleted")).toHaveLength(1);
    }
  });
});

describe("two server processes over one database", () => {
  it("the same If-Match sent to each: one 200, one 412, one change-log row", async () => {
    const other = await startServerProcess(server.database);
    try {
      const { owner, id } = await sharedAssistant();
      const elsewhere = new SessionClient(other.url);
      await elsewhere.signIn(owner.email, owner.password);
      for (let round = 0; round < 3; round += 1) {
        const etag = (await owner.get(`/api/assistants/${id}/capabilities`)).headers.get("etag")!;
        const before = await storedState(id);
        const results = await Promise.all([
          owner.patch(`/api/assistants/${id}/capabilities`, SEARCH, { headers: { "if-match": etag } }),
          elsewhere.patch(`/api/assistants/${id}/capabilities`, CITE, { headers: { "if-match": etag } }),
        ]);
        expect(results.map((res) => res.status).sort(), JSON.stringify(results.map((res) => res.body))).toEqual([200, 412]);
        const winner = results.find((res) => res.status === 200)!;
        const after = await storedState(id);
        expect(after.version).toBe(before.version + 1);
        expect(after.changes).toHaveLength(before.changes.length + 1);
        expect(after.capabilities).toEqual(winner.body.assistant.capabilities);
      }

      // Without If-Match, spread over both processes: each succeeds or answers 409, every success logged once.
      const before = await storedState(id);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? owner : elsewhere).patch(`/api/assistants/${id}/capabilities`, i % 3 === 0 ? SEARCH : CITE)),
      );
      for (const res of results) expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
      const successes = results.filter((res) => res.status === 200).length;
      const after = await storedState(id);
      expect(after.version).toBe(before.version + successes);
      expect(after.changes).toHaveLength(before.changes.length + successes);
    } finally {
      await other.stop();
    }
  });
});
