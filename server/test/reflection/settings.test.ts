import { ZApiFailure } from "@engram/contract";
import { type SessionResponse, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/domain/kernel/clock";
import { metricsService } from "../../src/domain/reflection/metrics/metrics-service";
import { reflectionService } from "../../src/domain/reflection/reflection-service";
import { DEFAULT_REFLECTION_SETTINGS } from "../../src/domain/reflection/settings";
import type { Store } from "../../src/domain/store";

/**
 * The reflection settings over HTTP: defaults until changed, every change validated with an error that names
 * the field, merged over what was saved, kept per organization, and saved with a version compare-and-set so
 * concurrent changes are never lost.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

const PATH = "/api/memory/reflection/settings";

function expectFailure(res: SessionResponse, status: number, code: string, message?: string | RegExp): void {
  expect({ status: res.status, error: res.body?.error }, JSON.stringify(res.body)).toEqual({ status, error: code });
  expect(ZApiFailure.strict().safeParse(res.body).success, JSON.stringify(res.body)).toBe(true);
  if (message !== undefined) expect(res.body.message).toEqual(typeof message === "string" ? message : expect.stringMatching(message));
}

const stored = (orgId: string) => server.db.reflectionSettings.findUnique({ where: { orgId } });

describe("reading", () => {
  it("answers the defaults, version 0, until someone changes them", async () => {
    const orgId = await server.newOrg();
    const member = await server.signedIn(orgId, "member");
    const res = await member.get(PATH);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, settings: DEFAULT_REFLECTION_SETTINGS, version: 0, updatedAt: null, updatedBy: null });
    expect(await stored(orgId)).toBeNull();
  });
});

describe("changing", () => {
  it("merges each change over what was saved, with who and when, for everyone in the organization", async () => {
    const orgId = await server.newOrg();
    const admin = await server.signedIn(orgId, "admin");
    const owner = await server.signedIn(orgId, "owner");
    const member = await server.signedIn(orgId, "member");

    const first = await admin.patch(PATH, { processes: { duplicates: { similarity: 0.9 } } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const afterFirst = structuredClone(DEFAULT_REFLECTION_SETTINGS);
    afterFirst.processes.duplicates.similarity = 0.9;
    expect(first.body).toEqual({ success: true, settings: afterFirst, version: 1, updatedAt: expect.any(String), updatedBy: `user:${admin.email}` });
    expect(Math.abs(Date.parse(first.body.updatedAt) - Date.now())).toBeLessThan(60_000);

    const second = await owner.patch(PATH, { intervalMinutes: 30, processes: { staleness: { enabled: false }, candidates: { autoPromote: true, expireAfterDays: 14 } } });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const afterSecond = structuredClone(afterFirst);
    afterSecond.intervalMinutes = 30;
    afterSecond.processes.staleness.enabled = false;
    afterSecond.processes.candidates.autoPromote = true;
    afterSecond.processes.candidates.expireAfterDays = 14;
    expect(second.body).toMatchObject({ settings: afterSecond, version: 2, updatedBy: `user:${owner.email}` });

    const read = await member.get(PATH);
    expect(read.body).toEqual({ success: true, settings: afterSecond, version: 2, updatedAt: second.body.updatedAt, updatedBy: `user:${owner.email}` });
    const row = await stored(orgId);
    expect({ settings: JSON.parse(row!.settings), version: row!.version, updatedBy: row!.updatedBy }).toEqual({ settings: afterSecond, version: 2, updatedBy: `user:${owner.email}` });

    // Another organization keeps its defaults.
    const other = await server.signedIn(await server.newOrg(), "member");
    expect((await other.get(PATH)).body.settings).toEqual(DEFAULT_REFLECTION_SETTINGS);
  });

  it("treats an empty change as a save of the same settings", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const res = await owner.patch(PATH, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ settings: DEFAULT_REFLECTION_SETTINGS, version: 1 });
  });

  it("is for owners and admins: a member is refused and nothing is saved", async () => {
    const orgId = await server.newOrg();
    const member = await server.signedIn(orgId, "member");
    expectFailure(await member.patch(PATH, { enabled: false }), 403, "permission_denied", /owners and admins/);
    expect(await stored(orgId)).toBeNull();
    expect((await member.get(PATH)).body.settings.enabled).toBe(true);
  });

  it("never loses a change made at the same time: each is saved whole or refused with 409 edit_conflict", async () => {
    const orgId = await server.newOrg();
    const owners = await Promise.all(Array.from({ length: 8 }, () => server.signedIn(orgId, "owner")));
    // One field each, every value unlike its default.
    const changes: Array<[string, number]> = [
      ["intervalMinutes", 45],
      ["processes.duplicates.similarity", 0.95],
      ["processes.staleness.staleAfterDays", 12],
      ["processes.staleness.maxConfidence", 0.25],
      ["processes.candidates.promoteMinConfidence", 0.75],
      ["processes.candidates.expireAfterDays", 9],
      ["processes.candidates.promoteMinReinforcements", 5],
      ["processes.candidates.promoteMinOccurrences", 6],
    ];
    const bodyOf = (path: string, value: number) => path.split(".").reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
    const valueAt = (settings: unknown, path: string) => path.split(".").reduce<any>((node, key) => node[key], settings);
    const answers = await Promise.all(changes.map(([path, value], i) => owners[i]!.patch(PATH, bodyOf(path, value))));
    for (const res of answers) if (res.status !== 200) expectFailure(res, 409, "edit_conflict");
    const final = (await owners[0]!.get(PATH)).body;
    expect(final.version).toBe(answers.filter((res) => res.status === 200).length);
    changes.forEach(([path, value], i) => {
      const expected = answers[i]!.status === 200 ? value : valueAt(DEFAULT_REFLECTION_SETTINGS, path);
      expect(valueAt(final.settings, path), `${path} (answered ${answers[i]!.status})`).toBe(expected);
    });
  });

  it("refuses a change whose settings another person saved after they were read, keeping theirs", async () => {
    const orgId = await server.newOrg();
    const { store, reflectionRunner } = server.services;
    // The real store, but every read of the settings is followed by another person's save before it returns.
    const racing: Store = {
      ...store,
      reflectionSettings: {
        ...store.reflectionSettings,
        async find(id) {
          const seen = await store.reflectionSettings.find(id);
          expect(await store.reflectionSettings.save(id, { intervalMinutes: 15 }, seen?.version ?? 0, new Date(), "user:other@example.com")).toBe(true);
          return seen;
        },
      },
    };
    const metrics = metricsService({ metrics: store.reflectionMetrics, usage: store.dailyUsage }, { clock: systemClock });
    const service = reflectionService(racing, { clock: systemClock, runner: reflectionRunner, metrics });
    const actor = { orgId, userId: "usr_x", role: "owner" as const, label: "user:owner@example.com" };
    await expect(service.updateSettings(actor, { enabled: false })).rejects.toMatchObject({ code: "edit_conflict" });
    const row = await stored(orgId);
    expect({ settings: JSON.parse(row!.settings), version: row!.version, updatedBy: row!.updatedBy }).toEqual({ settings: { intervalMinutes: 15 }, version: 1, updatedBy: "user:other@example.com" });
  });
});

describe("validation", () => {
  let owner: Awaited<ReturnType<TestServer["signedIn"]>>;
  let orgId: string;
  beforeAll(async () => {
    orgId = await server.newOrg();
    owner = await server.signedIn(orgId, "owner");
    expect((await owner.patch(PATH, { intervalMinutes: 90 })).status).toBe(200);
  });

  it.each([
    [{ processes: { duplicates: { similarity: 0.2 } } }, "processes.duplicates.similarity: Number must be greater than or equal to 0.5"],
    [{ processes: { duplicates: { similarity: 1.01 } } }, "processes.duplicates.similarity: Number must be less than or equal to 1"],
    [{ intervalMinutes: 4 }, "intervalMinutes: Number must be greater than or equal to 5"],
    [{ intervalMinutes: 7 * 24 * 60 + 1 }, "intervalMinutes: Number must be less than or equal to 10080"],
    [{ intervalMinutes: 12.5 }, "intervalMinutes: Expected integer, received float"],
    [{ processes: { staleness: { staleAfterDays: 0 } } }, "processes.staleness.staleAfterDays: Number must be greater than or equal to 1"],
    [{ processes: { staleness: { maxConfidence: -0.1 } } }, "processes.staleness.maxConfidence: Number must be greater than or equal to 0"],
    [{ processes: { candidates: { promoteMinConfidence: 2 } } }, "processes.candidates.promoteMinConfidence: Number must be less than or equal to 1"],
    [{ processes: { candidates: { promoteMinReinforcements: 0 } } }, "processes.candidates.promoteMinReinforcements: Number must be greater than or equal to 1"],
    [{ processes: { candidates: { promoteMinOccurrences: 1 } } }, "processes.candidates.promoteMinOccurrences: Number must be greater than or equal to 2"],
    [{ processes: { candidates: { expireAfterDays: 3651 } } }, "processes.candidates.expireAfterDays: Number must be less than or equal to 3650"],
  ])("refuses an out-of-bounds value, naming the field: %j", async (body, message) => {
    expectFailure(await owner.patch(PATH, body), 400, "invalid_parameter", message);
  });

  it.each([
    [{ enabled: "yes" }, "enabled: Expected boolean, received string"],
    [{ intervalMinutes: "60" }, "intervalMinutes: Expected number, received string"],
    [{ processes: [] }, "processes: Expected object, received array"],
    [{ processes: { activation: { enabled: 1 } } }, "processes.activation.enabled: Expected boolean, received number"],
    [{ processes: { duplicates: null } }, "processes.duplicates: Expected object, received null"],
    [{ processes: { candidates: { autoPromote: "true" } } }, "processes.candidates.autoPromote: Expected boolean, received string"],
  ])("refuses a value of the wrong type, naming the field: %j", async (body, message) => {
    expectFailure(await owner.patch(PATH, body), 400, "invalid_parameter", message);
  });

  it.each([
    [{ enable: true }, 'Unknown field "enable".'],
    [{ processes: { decay: { enabled: true } } }, 'Unknown field "decay".'],
    [{ processes: { duplicates: { threshold: 0.9 } } }, 'Unknown field "threshold".'],
    [{ settings: DEFAULT_REFLECTION_SETTINGS }, 'Unknown field "settings".'],
  ])("refuses an unknown field, naming it: %j", async (body, message) => {
    expectFailure(await owner.patch(PATH, body), 400, "unknown_parameter", message);
  });

  it("refuses a change with several bad fields whole, naming one, and saves none of it", async () => {
    const res = await owner.patch(PATH, { enabled: false, intervalMinutes: 1, processes: { duplicates: { similarity: 3 }, staleness: { enabled: false } } });
    expectFailure(res, 400, "invalid_parameter", /^(intervalMinutes|processes\.duplicates\.similarity): Number must be/);
    const read = await owner.get(PATH);
    expect(read.body).toMatchObject({ version: 1, settings: { enabled: true, intervalMinutes: 90, processes: { staleness: { enabled: true } } } });
  });

  it("refuses a body that is no object", async () => {
    for (const body of ["[]", "null", '"enabled"', "7"]) expectFailure(await owner.patch(PATH, body), 400, "invalid_parameter");
    expectFailure(await owner.patch(PATH, "{"), 400, "invalid_json");
    expect((await stored(orgId))!.version).toBe(1);
  });
});
