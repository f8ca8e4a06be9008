import { ZErrorBody, ZEventResult } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, rawRequest, startServerOn, startTestServer, type TestServer } from "@engram/test-support";
import { loadMigrations, migrate } from "../src/db/migrations";
import { connectPrisma } from "../src/db/prisma";
import { derivedEventKey, eventRequestHash } from "../src/domain/events/event-key";

// An event's key is unique for as long as the event is stored; only encode's request keys expire (after 24 h).
const DAY_MS = 24 * 60 * 60 * 1000;

let server: TestServer;
let offsetMs = 0;
/** Moves the server's clock forward. */
const advance = (ms: number) => {
  offsetMs += ms;
};
beforeAll(async () => {
  server = await startTestServer({ now: () => new Date(Date.now() + offsetMs) });
});
afterAll(() => server?.stop());

const incident = {
  type: "incident.resolved",
  text: "INC-77 resolved: the ledger queue backed up after a schema change; replayed and added a lag alert.",
  source: "pagerduty",
  subject: "INC-77",
  metadata: { service: "ledger", severity: "sev2" },
};

async function post(token: string, body: unknown, headers: Record<string, string> = {}, url = server.url) {
  const res = await rawRequest(url, "/v1/memory/events", { token, body: JSON.stringify(body), headers });
  return { ...res, result: res.status === 201 ? ZEventResult.parse(res.body) : undefined };
}

const stored = async (orgId: string) => ({
  events: await server.db.businessEvent.count({ where: { orgId } }),
  memories: await server.db.memory.count({ where: { orgId } }),
});

describe("an event resent after the 24 h idempotency window", () => {
  it.each([
    ["its derived key", {}],
    ["its Idempotency-Key", { "idempotency-key": "pd-incident-77" }],
  ])("replays the original answer under %s, weeks later, and stores nothing new", async (_label, headers) => {
    const { orgId, token } = await server.newTenant();
    const first = await post(token, incident, headers);
    expect(first.result).toMatchObject({ replayed: false, triage: { outcome: "candidate" } });

    for (const later of [DAY_MS + 60_000, 30 * DAY_MS]) {
      advance(later);
      const resent = await post(token, incident, headers);
      expect(resent.status).toBe(201);
      expect(resent.headers.get("idempotent-replayed")).toBe("true");
      expect(resent.result).toEqual({ ...first.result, replayed: true });
    }
    expect(await stored(orgId)).toEqual({ events: 1, memories: 1 });
    // Nothing about an event is kept in the expiring request-key table.
    expect(await server.db.idempotencyRecord.count({ where: { orgId } })).toBe(0);
  });

  it("still refuses a different event under a used Idempotency-Key", async () => {
    const { orgId, token } = await server.newTenant();
    await post(token, incident, { "idempotency-key": "pd-reused" });
    advance(2 * DAY_MS);
    const conflict = await post(token, { ...incident, text: "Another incident entirely." }, { "idempotency-key": "pd-reused" });
    expect(conflict.status).toBe(409);
    expect(ZErrorBody.parse(conflict.body).error).toMatchObject({ code: "idempotency_key_reused", param: "Idempotency-Key" });
    expect(await stored(orgId)).toEqual({ events: 1, memories: 1 });
  });

  it.each([
    ["without a key", {}],
    ["with one Idempotency-Key", { "idempotency-key": "late-burst" }],
  ])("turns 20 concurrent resends %s into the one stored event", async (_label, headers) => {
    const { orgId, token } = await server.newTenant();
    const first = await post(token, incident, headers);
    advance(DAY_MS + 1);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(token, incident, headers)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(results.every((r) => r.result!.replayed && r.result!.eventId === first.result!.eventId)).toBe(true);
    expect(await stored(orgId)).toEqual({ events: 1, memories: 1 });
  });

  it("keeps keys apart per organization and environment", async () => {
    const orgId = await server.newOrg();
    const tokens = { production: await server.newToken(orgId), staging: await server.newToken(orgId, { environment: "staging" }) };
    const first = { production: await post(tokens.production, incident), staging: await post(tokens.staging, incident) };
    expect(first.staging.result!.eventId).not.toBe(first.production.result!.eventId);
    advance(DAY_MS + 1);
    for (const environment of ["production", "staging"] as const) {
      expect((await post(tokens[environment], incident)).result).toMatchObject({ replayed: true, eventId: first[environment].result!.eventId });
    }
    const other = await server.newTenant();
    expect((await post(other.token, incident)).result!.replayed).toBe(false);
    expect(await stored(orgId)).toEqual({ events: 2, memories: 2 });
  });

  it("is enforced by the database: a second row under the same key is refused", async () => {
    const { orgId, token } = await server.newTenant();
    const { result } = await post(token, incident, { "idempotency-key": "db-unique" });
    const row = await server.db.businessEvent.findUniqueOrThrow({ where: { id: result!.eventId } });
    await expect(server.db.businessEvent.create({ data: { ...row, id: "evt_second_copy" } })).rejects.toMatchObject({ code: "P2002" });
    // The same key in another environment is another event.
    await server.db.businessEvent.create({ data: { ...row, id: "evt_staging_copy", environment: "staging" } });
    expect(await server.db.businessEvent.count({ where: { orgId } })).toBe(2);
  });
});

describe("encode's request idempotency", () => {
  it("keeps its documented 24 h: a key is replayed within the window and free again after it", async () => {
    const { orgId, token } = await server.newTenant();
    const encode = () => rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "Ledger deploys on Tuesdays." }), headers: { "idempotency-key": "ledger-1" } });
    const first = await encode();
    advance(DAY_MS - 60_000);
    const replay = await encode();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    advance(2 * 60_000);
    const afresh = await encode();
    expect(afresh.status).toBe(201);
    expect(afresh.headers.get("idempotent-replayed")).toBeNull();
    expect(afresh.body.memory.id).not.toBe(first.body.memory.id);
    expect(await server.db.memory.count({ where: { orgId } })).toBe(2);
  });
});

describe("upgrading a database that stored an event twice", () => {
  const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 60 * 60 * 1000).toISOString();
  const answer = (id: string, key: string, keySource: string, receivedAt: string, candidateIds: string[], workflowChanges: unknown[]) => ({
    eventId: id,
    replayed: false,
    idempotencyKey: key,
    keySource,
    environment: "production",
    effects: { productionAutomation: true, notifications: true, externalWrites: true },
    records: { sourceKind: "developer_event", businessEvent: { id, type: incident.type, subject: incident.subject, source: incident.source, receivedAt } },
    triage: { rule: incident.type, outcome: candidateIds.length > 0 ? "candidate" : "recorded" },
    workflowChanges,
    candidateIds,
  });

  it("keeps every copy, leaves the key to the first, and from then on replays it", async () => {
    const database = await freshDatabase();
    const migrations = loadMigrations(database.provider);
    const upgrade = migrations.findIndex((m) => m.name.endsWith("_event_keys_unique"));
    await migrate(database, { upTo: migrations[upgrade - 1]!.name });

    // As the old code left things: one key stored twice (the resend came after its 24 h window), the second
    // copy's answer still in the key table, and another event inside its window.
    const resolved = { ...incident, text: "INC-78 resolved." };
    const derived = derivedEventKey(resolved, eventRequestHash(resolved));
    const events = [
      { id: "evt_first", key: "pd-legacy", keySource: "header", text: incident.text, receivedAt: at(72), memory: "mem_first" },
      { id: "evt_again", key: "pd-legacy", keySource: "header", text: incident.text, receivedAt: at(1), memory: "mem_again" },
      { id: "evt_recent", key: derived, keySource: "derived", text: "INC-78 resolved.", receivedAt: at(2), memory: null },
    ];
    const recentAnswer = answer("evt_recent", derived, "derived", events[2]!.receivedAt, [], [{ workflow: "incident", subject: "INC-77", track: null, from: "open", to: "resolved" }]);
    const records = [
      { key: "pd-legacy", body: answer("evt_again", "pd-legacy", "header", events[1]!.receivedAt, ["mem_again"], []) },
      { key: derived, body: recentAnswer },
    ];
    const old = await connectPrisma(database);
    try {
      await old.$executeRawUnsafe(`INSERT INTO "Organization" ("id", "name", "createdAt") VALUES ('org_legacy', 'Legacy', '${at(100)}')`);
      for (const e of events) {
        await old.$executeRawUnsafe(
          `INSERT INTO "BusinessEvent" ("id", "orgId", "environment", "type", "text", "source", "subject", "metadata", "idempotencyKey", "keySource",
             "triageRule", "effectsSuppressed", "tokenId", "requestId", "receivedAt")
           VALUES ('${e.id}', 'org_legacy', 'production', '${incident.type}', '${e.text}', '${incident.source}', '${incident.subject}',
             '${JSON.stringify(incident.metadata)}', '${e.key}', '${e.keySource}', '${incident.type}', false, 'tok_old', 'req_old', '${e.receivedAt}')`,
        );
        if (e.memory) {
          await old.$executeRawUnsafe(
            `INSERT INTO "Memory" ("id", "orgId", "environment", "text", "memoryKind", "confidence", "state", "source", "eventId", "searchText", "createdAt", "updatedAt")
             VALUES ('${e.memory}', 'org_legacy', 'production', '${e.text}', 'event', 0.9, 'candidate', 'developer_event', '${e.id}', 'inc', '${e.receivedAt}', '${e.receivedAt}')`,
          );
        }
      }
      for (const [i, r] of records.entries()) {
        await old.$executeRawUnsafe(
          `INSERT INTO "IdempotencyRecord" ("id", "orgId", "environment", "route", "key", "requestHash", "status", "responseBody", "createdAt", "expiresAt")
           VALUES ('idk_${i}', 'org_legacy', 'production', 'memory.events', '${r.key}', 'old-hash', 201, '${JSON.stringify(r.body)}', '${at(1)}', '${at(-23)}')`,
        );
      }
    } finally {
      await old.$disconnect();
    }

    expect((await migrate(database)).applied[0]).toBe(migrations[upgrade]!.name);
    const twin = await startServerOn(database);
    const db = await connectPrisma(database);
    try {
      const rows = await db.businessEvent.findMany({ where: { orgId: "org_legacy" }, orderBy: { receivedAt: "asc" } });
      expect(rows.map((row) => [row.id, row.idempotencyKey, row.response === null ? null : JSON.parse(row.response).eventId])).toEqual([
        ["evt_first", "pd-legacy", null],
        ["evt_recent", derived, "evt_recent"],
        ["evt_again", "pd-legacy:duplicate:evt_again", "evt_again"],
      ]);

      const token = (await twin.services.tokens.create({ orgId: "org_legacy", name: "after-upgrade", scopes: ["memory:write"], environment: "production", agentSlugs: null })).token;
      // The first copy's answer was never kept: it is rebuilt from the stored event, without workflow changes.
      const first = await post(token, incident, { "idempotency-key": "pd-legacy" }, twin.url);
      expect(first.result).toEqual({ ...answer("evt_first", "pd-legacy", "header", events[0]!.receivedAt, ["mem_first"], []), replayed: true });
      const recent = await post(token, { ...incident, text: "INC-78 resolved." }, {}, twin.url);
      expect(recent.result).toEqual({ ...recentAnswer, replayed: true });
      expect(await db.businessEvent.count({ where: { orgId: "org_legacy" } })).toBe(3);
    } finally {
      await db.$disconnect();
      await twin.close();
    }
  });
});
