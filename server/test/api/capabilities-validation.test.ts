import type { TTier } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SessionClient, startTestServer, type TestServer } from "@engram/test-support";

/**
 * PATCH /api/assistants/:id/capabilities refuses what breaks the capability rules with every problem at once,
 * and changes nothing when it refuses. Each rule is exercised alone, through HTTP, on both assistant types.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

type AssistantType = "org_shared" | "employee_personal";

/** A valid config for every capability that takes one. */
const CONFIGS: Record<string, Record<string, unknown>> = {
  search_memory: { maxMemories: 8 },
  summarize_threads: { maxMessages: 100 },
  translate_messages: { targetLanguages: ["de", "pt-BR"] },
  post_announcements: { channels: ["#general"], requireApproval: true },
  schedule_meetings: { maxMeetingMinutes: 60, addVideoLink: false },
  daily_briefing: { sendAtHour: 8, includeCalendar: true },
  review_pull_requests: { repositories: ["acme/api"], maxFilesPerReview: 40 },
  triage_alerts: { services: ["payments"], autoAcknowledge: false },
  draft_ticket_replies: { queues: ["billing"], maxDraftsPerHour: 30 },
  escalate_tickets: { escalateAfterMinutes: 30, notifyOnCall: true },
};
const configsFor = (capabilities: string[]) => Object.fromEntries(capabilities.filter((id) => id in CONFIGS).map((id) => [id, CONFIGS[id]!]));

/** Capabilities an assistant of the type may have on the tier, answer_questions left out (it is implied). */
const ASSIGNABLE: Record<TTier, Record<AssistantType, string[]>> = {
  free: {
    org_shared: ["search_memory", "cite_sources", "summarize_documents", "onboard_new_hires", "route_requests"],
    employee_personal: ["search_memory", "cite_sources", "summarize_documents", "draft_messages", "track_tasks"],
  },
  spark: {
    org_shared: ["cite_sources", "summarize_documents", "onboard_new_hires", "route_requests", "take_meeting_notes", "explain_code"],
    employee_personal: ["cite_sources", "summarize_documents", "draft_messages", "track_tasks", "take_meeting_notes", "explain_code"],
  },
  seed: {
    org_shared: ["cite_sources", "summarize_documents", "onboard_new_hires", "route_requests", "take_meeting_notes", "explain_code", "summarize_incidents", "post_announcements"],
    employee_personal: ["cite_sources", "summarize_documents", "draft_messages", "track_tasks", "take_meeting_notes", "explain_code", "schedule_meetings", "summarize_threads"],
  },
  rise: {
    org_shared: ["cite_sources", "summarize_documents", "onboard_new_hires", "review_pull_requests", "draft_ticket_replies", "route_requests", "take_meeting_notes", "explain_code"],
    employee_personal: ["cite_sources", "summarize_documents", "draft_messages", "daily_briefing", "track_tasks", "take_meeting_notes", "explain_code", "translate_messages"],
  },
  // Every capability assignable to the type.
  boost: {
    org_shared: [
      "search_memory", "cite_sources", "summarize_documents", "onboard_new_hires", "summarize_threads", "translate_messages", "post_announcements",
      "take_meeting_notes", "explain_code", "summarize_incidents", "review_pull_requests", "triage_alerts", "route_requests", "draft_ticket_replies", "escalate_tickets",
    ],
    employee_personal: [
      "search_memory", "cite_sources", "summarize_documents", "draft_messages", "summarize_threads", "translate_messages", "track_tasks",
      "take_meeting_notes", "schedule_meetings", "daily_briefing", "explain_code",
    ],
  },
};
const LIMITS: Record<Exclude<TTier, "boost">, number> = { free: 3, spark: 3, seed: 7, rise: 7 };

async function assistantIn(tier: TTier, type: AssistantType): Promise<{ client: SessionClient; id: string }> {
  const client = await server.signedIn(await server.newOrg({ plan: tier }), "owner");
  const res = await client.post("/api/assistants", { name: `Helper on ${tier}`, type });
  expect(res.status).toBe(201);
  return { client, id: res.body.assistant._id };
}

/** What a refusal must leave as it was: the capabilities, the version, and the change log. */
async function stateOf(client: SessionClient, id: string) {
  const read = await client.get(`/api/assistants/${id}/capabilities`);
  const changes = await server.db.assistantChange.count({ where: { assistantId: id } });
  return { body: read.body, etag: read.headers.get("etag"), changes };
}

/** PATCHes and expects the documented validation failure with exactly these problems; nothing may change. */
async function expectRefused(client: SessionClient, id: string, body: unknown, validationErrors: unknown[]) {
  const before = await stateOf(client, id);
  const res = await client.patch(`/api/assistants/${id}/capabilities`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toStrictEqual({ success: false, error: "validation_failed", validationErrors });
  expect(await stateOf(client, id)).toEqual(before);
}

async function expectAccepted(client: SessionClient, id: string, body: { capabilities: string[]; capabilityConfigs?: object }) {
  const res = await client.patch(`/api/assistants/${id}/capabilities`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const expected = ["answer_questions", ...body.capabilities.filter((c) => c !== "answer_questions")];
  expect(res.body.assistant.capabilities).toEqual(expected);
  return res;
}

describe("rule 1 and 2: scope against the assistant's type", () => {
  it("refuses an organization-scope capability on a personal assistant", async () => {
    const { client, id } = await assistantIn("boost", "employee_personal");
    await expectRefused(client, id, { capabilities: ["route_requests"] }, [
      { capabilityId: "route_requests", error: "route_requests is for organization-wide (org_shared) assistants only." },
    ]);
  });

  it("refuses a user-scope capability on an org_shared assistant", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    await expectRefused(client, id, { capabilities: ["track_tasks"] }, [
      { capabilityId: "track_tasks", error: "track_tasks is for personal (employee_personal) assistants only." },
    ]);
  });

  it("rule 3: allows a both-scope capability on either type", async () => {
    for (const type of ["org_shared", "employee_personal"] as const) {
      const { client, id } = await assistantIn("free", type);
      await expectAccepted(client, id, { capabilities: ["cite_sources", "summarize_documents"] });
    }
  });
});

describe("rule 4: the tier's limit, answer_questions included", () => {
  for (const tier of ["free", "spark", "seed", "rise"] as const) {
    it(`${tier}: exactly ${LIMITS[tier]} pass, ${LIMITS[tier] + 1} are refused naming the tier, the maximum and the count`, async () => {
      const max = LIMITS[tier];
      for (const type of ["org_shared", "employee_personal"] as const) {
        const { client, id } = await assistantIn(tier, type);
        const pool = ASSIGNABLE[tier][type];
        expect(pool.length).toBeGreaterThanOrEqual(max);
        const exactly = pool.slice(0, max - 1);
        // Omitted, answer_questions still counts.
        await expectAccepted(client, id, { capabilities: exactly, capabilityConfigs: configsFor(exactly) });
        const named = ["answer_questions", ...exactly];
        await expectAccepted(client, id, { capabilities: named, capabilityConfigs: configsFor(named) });

        const over = pool.slice(0, max);
        const error = `The ${tier} tier allows at most ${max} capabilities, answer_questions included; ${max + 1} were given.`;
        await expectRefused(client, id, { capabilities: over, capabilityConfigs: configsFor(over) }, [{ error }]);
        await expectRefused(client, id, { capabilities: ["answer_questions", ...over], capabilityConfigs: configsFor(over) }, [{ error }]);
      }
    });
  }

  it("boost: no limit, every capability assignable to the type passes at once", async () => {
    for (const type of ["org_shared", "employee_personal"] as const) {
      const { client, id } = await assistantIn("boost", type);
      const all = ASSIGNABLE.boost[type];
      const res = await expectAccepted(client, id, { capabilities: all, capabilityConfigs: configsFor(all) });
      expect(res.body.assistant.capabilityConfigs).toEqual(configsFor(all));
      const available = await client.get(`/api/assistants/${id}/available-capabilities`);
      expect(available.body.capabilities.map((c: { id: string }) => c.id).sort()).toEqual(["answer_questions", ...all].sort());
    }
  });
});

describe("rule 5: the capability's tier requirement", () => {
  const cases: Array<[TTier, AssistantType, string, TTier]> = [
    ["free", "org_shared", "take_meeting_notes", "spark"],
    ["spark", "employee_personal", "schedule_meetings", "seed"],
    ["seed", "org_shared", "review_pull_requests", "rise"],
    ["rise", "org_shared", "triage_alerts", "boost"],
  ];
  for (const [tier, type, capability, requirement] of cases) {
    it(`refuses ${capability} (${requirement}) on the ${tier} tier`, async () => {
      const { client, id } = await assistantIn(tier, type);
      await expectRefused(client, id, { capabilities: [capability], capabilityConfigs: configsFor([capability]) }, [
        { capabilityId: capability, error: `${capability} needs the ${requirement} tier or above; this organization is on the ${tier} tier.` },
      ]);
    });
  }
});

describe("rule 6 and config checks", () => {
  it("refuses a capability whose required config field is missing", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    await expectRefused(client, id, { capabilities: ["search_memory"] }, [
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories is required." },
    ]);
    await expectRefused(client, id, { capabilities: ["escalate_tickets"], capabilityConfigs: { escalate_tickets: { escalateAfterMinutes: 10 } } }, [
      { capabilityId: "escalate_tickets", error: "capabilityConfigs.escalate_tickets.notifyOnCall is required." },
    ]);
  });

  it("refuses config values of the wrong type: list, integer, boolean", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    await expectRefused(client, id, { capabilities: ["translate_messages"], capabilityConfigs: { translate_messages: { targetLanguages: "de" } } }, [
      { capabilityId: "translate_messages", error: "capabilityConfigs.translate_messages.targetLanguages must be a list of strings; got a string." },
    ]);
    await expectRefused(client, id, { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: "5" } } }, [
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be an integer; got a string." },
    ]);
    await expectRefused(client, id, { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 2.5 } } }, [
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be an integer; got 2.5." },
    ]);
    await expectRefused(client, id, { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 21 } } }, [
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be between 1 and 20; got 21." },
    ]);
    await expectRefused(
      client,
      id,
      { capabilities: ["post_announcements"], capabilityConfigs: { post_announcements: { channels: ["#general"], requireApproval: "yes" } } },
      [{ capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.requireApproval must be true or false; got a string." }],
    );
  });

  it("refuses a config for a capability that is not enabled, and for one that takes none", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    await expectRefused(client, id, { capabilities: ["cite_sources"], capabilityConfigs: { search_memory: { maxMemories: 3 } } }, [
      { capabilityId: "search_memory", error: "search_memory has a config but is not enabled in this request." },
    ]);
    await expectRefused(client, id, { capabilities: ["cite_sources"], capabilityConfigs: { cite_sources: {} } }, [
      { capabilityId: "cite_sources", error: "cite_sources takes no configuration." },
    ]);
  });
});

describe("ids", () => {
  it("refuses an unknown id", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    await expectRefused(client, id, { capabilities: ["read_minds"] }, [{ capabilityId: "read_minds", error: 'Unknown capability "read_minds".' }]);
  });

  it("refuses an id listed twice", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    await expectRefused(client, id, { capabilities: ["cite_sources", "cite_sources"] }, [
      { capabilityId: "cite_sources", error: 'Capability "cite_sources" is listed more than once.' },
    ]);
  });
});

it("reports several problems at once, in one array", async () => {
  const { client, id } = await assistantIn("free", "employee_personal");
  await expectRefused(
    client,
    id,
    {
      capabilities: ["route_requests", "take_meeting_notes", "read_minds", "search_memory", "cite_sources", "cite_sources"],
      capabilityConfigs: { search_memory: { maxMemories: "many" }, track_tasks: {} },
    },
    [
      { error: "The free tier allows at most 3 capabilities, answer_questions included; 6 were given." },
      { capabilityId: "route_requests", error: "route_requests is for organization-wide (org_shared) assistants only." },
      { capabilityId: "take_meeting_notes", error: "take_meeting_notes needs the spark tier or above; this organization is on the free tier." },
      { capabilityId: "read_minds", error: 'Unknown capability "read_minds".' },
      { capabilityId: "cite_sources", error: 'Capability "cite_sources" is listed more than once.' },
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be an integer; got a string." },
      { capabilityId: "track_tasks", error: "track_tasks has a config but is not enabled in this request." },
    ],
  );
});

it("a refused PATCH after an accepted one leaves the accepted state, version and log as they were", async () => {
  const { client, id } = await assistantIn("seed", "org_shared");
  await expectAccepted(client, id, { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 3 } } });
  await expectRefused(client, id, { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 0 } } }, [
    { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be between 1 and 20; got 0." },
  ]);
  const read = await client.get(`/api/assistants/${id}/capabilities`);
  expect(read.body.capabilityConfigs).toEqual({ search_memory: { maxMemories: 3 } });
  expect(read.headers.get("etag")).toBe('"2"');
});

describe("body format errors: 400 {success:false, error, message}", () => {
  const cases: Array<[string, unknown, string]> = [
    ["capabilities missing", { capabilityConfigs: {} }, "missing_parameter"],
    ["capabilities not an array", { capabilities: "cite_sources" }, "invalid_parameter"],
    ["a capability id not a string", { capabilities: [42] }, "invalid_parameter"],
    ["101 ids", { capabilities: Array.from({ length: 101 }, (_, i) => `capability_${i}`) }, "invalid_parameter"],
    ["an extra top-level field", { capabilities: [], name: "Renamed" }, "unknown_parameter"],
    ["capabilityConfigs not an object", { capabilities: [], capabilityConfigs: ["search_memory"] }, "invalid_parameter"],
    ["capabilityConfigs null", { capabilities: [], capabilityConfigs: null }, "invalid_parameter"],
    ["a capability's config not an object", { capabilities: ["search_memory"], capabilityConfigs: { search_memory: 5 } }, "invalid_parameter"],
    ["a body that is an array", [], "invalid_parameter"],
  ];
  for (const [what, body, error] of cases) {
    it(`refuses ${what} with ${error}, changing nothing`, async () => {
      const { client, id } = await assistantIn("boost", "org_shared");
      const before = await stateOf(client, id);
      const res = await client.patch(`/api/assistants/${id}/capabilities`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(Object.keys(res.body).sort()).toEqual(["error", "message", "success"]);
      expect(res.body).toMatchObject({ success: false, error });
      expect(res.body.message.length).toBeGreaterThan(0);
      expect(await stateOf(client, id)).toEqual(before);
    });
  }

  it("refuses JSON that does not parse", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    const res = await client.patch(`/api/assistants/${id}/capabilities`, '{"capabilities": [');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: "invalid_json" });
  });

  it("100 ids are not a format error: each unknown one is reported", async () => {
    const { client, id } = await assistantIn("boost", "org_shared");
    const res = await client.patch(`/api/assistants/${id}/capabilities`, { capabilities: Array.from({ length: 100 }, (_, i) => `capability_${i}`) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_failed");
    // At most 50 listed, then one entry counting the rest.
    expect(res.body.validationErrors).toHaveLength(51);
    expect(res.body.validationErrors.at(-1)).toEqual({ error: "And 50 more problems not listed." });
  });
});
