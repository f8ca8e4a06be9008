import type { TAssistantType, TTier } from "@engram/contract";
import { describe, expect, it } from "vitest";
import { checkCapabilityUpdate, MAX_LISTED_PROBLEMS } from "../../src/domain/capabilities/check-update";
import { registryView } from "../../src/domain/capabilities/registry-views";

type Configs = Record<string, Record<string, unknown>>;

function check(capabilities: readonly string[], capabilityConfigs: Configs = {}, target: { assistantType?: TAssistantType; tier?: TTier } = {}) {
  return checkCapabilityUpdate({ capabilities, capabilityConfigs }, { assistantType: "org_shared", tier: "boost", ...target });
}

function problemsOf(result: ReturnType<typeof check>) {
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result)}`);
  return result.problems;
}

/** A valid config for every capability that takes one. */
const validConfigs: Configs = {
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

/** Capabilities that take no config, assignable to org_shared assistants, no higher than seed. */
const plainUpToSeed = ["cite_sources", "summarize_documents", "onboard_new_hires", "route_requests", "take_meeting_notes", "explain_code", "summarize_incidents"];

describe("scope rules", () => {
  it("gives organization capabilities only to org_shared assistants", () => {
    expect(check(["route_requests"]).ok).toBe(true);
    expect(problemsOf(check(["route_requests"], {}, { assistantType: "employee_personal" }))).toEqual([
      { capabilityId: "route_requests", error: "route_requests is for organization-wide (org_shared) assistants only." },
    ]);
  });

  it("gives user capabilities only to employee_personal assistants", () => {
    expect(check(["draft_messages"], {}, { assistantType: "employee_personal" }).ok).toBe(true);
    expect(problemsOf(check(["draft_messages"]))).toEqual([
      { capabilityId: "draft_messages", error: "draft_messages is for personal (employee_personal) assistants only." },
    ]);
  });

  it("gives capabilities of both scopes to either type", () => {
    for (const assistantType of ["org_shared", "employee_personal"] as const) {
      expect(check(["cite_sources", "summarize_documents"], {}, { assistantType, tier: "free" })).toEqual({
        ok: true,
        capabilities: ["answer_questions", "cite_sources", "summarize_documents"],
        capabilityConfigs: {},
      });
    }
  });
});

describe("tier limit", () => {
  for (const [tier, limit] of [["free", 3], ["spark", 3], ["seed", 7], ["rise", 7]] as const) {
    it(`allows ${limit} capabilities on ${tier}, answer_questions included, and rejects ${limit + 1}`, () => {
      const most = plainUpToSeed.slice(0, limit - 1);
      const tooMany = plainUpToSeed.slice(0, limit);
      // Free may use only free capabilities: the first four of the list are.
      expect(check(most, {}, { tier }).ok).toBe(true);
      expect(check(["answer_questions", ...most], {}, { tier }).ok).toBe(true);
      const message = `The ${tier} tier allows at most ${limit} capabilities, answer_questions included; ${limit + 1} were given.`;
      expect(problemsOf(check(tooMany, {}, { tier }))).toEqual([{ error: message }]);
      expect(problemsOf(check([...most, "answer_questions", tooMany.at(-1)!], {}, { tier }))).toEqual([{ error: message }]);
    });
  }

  it("counts an omitted answer_questions, so Spark allows answer_questions and two others", () => {
    expect(check(["cite_sources", "summarize_documents"], {}, { tier: "spark" }).ok).toBe(true);
    expect(problemsOf(check(["cite_sources", "summarize_documents", "explain_code"], {}, { tier: "spark" }))).toEqual([
      { error: "The spark tier allows at most 3 capabilities, answer_questions included; 4 were given." },
    ]);
  });

  it("has no limit on boost", () => {
    for (const assistantType of ["org_shared", "employee_personal"] as const) {
      const everything = registryView({ assistantType }).capabilities.map((entry) => entry.id);
      const configs = Object.fromEntries(Object.entries(validConfigs).filter(([id]) => everything.includes(id)));
      const result = check(everything, configs, { assistantType, tier: "boost" });
      expect(result).toEqual({ ok: true, capabilities: everything, capabilityConfigs: configs });
      expect(everything.length).toBeGreaterThan(7);
    }
  });
});

describe("tier requirement", () => {
  it("rejects a capability above the organization's tier and accepts it from that tier up", () => {
    expect(problemsOf(check(["summarize_incidents"], {}, { tier: "spark" }))).toEqual([
      { capabilityId: "summarize_incidents", error: "summarize_incidents needs the seed tier or above; this organization is on the spark tier." },
    ]);
    for (const tier of ["seed", "rise", "boost"] as const) expect(check(["summarize_incidents"], {}, { tier }).ok).toBe(true);
  });
});

describe("required config", () => {
  it("requires every config field of a capability that requires config", () => {
    expect(problemsOf(check(["search_memory"]))).toEqual([{ capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories is required." }]);
    expect(problemsOf(check(["search_memory"], { search_memory: {} }))).toEqual([
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories is required." },
    ]);
    expect(problemsOf(check(["post_announcements"], { post_announcements: { channels: [] } }))).toEqual([
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.requireApproval is required." },
    ]);
  });

  it("accepts a complete config and returns it", () => {
    expect(check(["post_announcements"], { post_announcements: { channels: [], requireApproval: false } })).toEqual({
      ok: true,
      capabilities: ["answer_questions", "post_announcements"],
      capabilityConfigs: { post_announcements: { channels: [], requireApproval: false } },
    });
  });
});

describe("ids", () => {
  it("rejects unknown ids, including Object.prototype's names", () => {
    expect(problemsOf(check(["cite_sources", "fly_to_the_moon", "__proto__", "constructor"]))).toEqual([
      { capabilityId: "fly_to_the_moon", error: 'Unknown capability "fly_to_the_moon".' },
      { capabilityId: "__proto__", error: 'Unknown capability "__proto__".' },
      { capabilityId: "constructor", error: 'Unknown capability "constructor".' },
    ]);
  });

  it("rejects an id listed twice, once per id", () => {
    expect(problemsOf(check(["cite_sources", "answer_questions", "cite_sources", "answer_questions", "cite_sources"]))).toEqual([
      { capabilityId: "cite_sources", error: 'Capability "cite_sources" is listed more than once.' },
      { capabilityId: "answer_questions", error: 'Capability "answer_questions" is listed more than once.' },
    ]);
  });

  it("adds answer_questions first when omitted", () => {
    expect(check(["summarize_documents", "cite_sources"])).toMatchObject({ ok: true, capabilities: ["answer_questions", "summarize_documents", "cite_sources"] });
    expect(check([])).toEqual({ ok: true, capabilities: ["answer_questions"], capabilityConfigs: {} });
  });

  it("moves a given answer_questions first without repeating it", () => {
    expect(check(["summarize_documents", "answer_questions", "cite_sources"])).toMatchObject({
      ok: true,
      capabilities: ["answer_questions", "summarize_documents", "cite_sources"],
    });
  });
});

describe("config values", () => {
  const one = (id: string, config: Record<string, unknown>) => problemsOf(check([id], { [id]: config }));

  it("rejects values of the wrong type for each field type", () => {
    expect(one("search_memory", { maxMemories: "5" })).toEqual([
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be an integer; got a string." },
    ]);
    expect(one("search_memory", { maxMemories: 2.5 })).toEqual([
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be an integer; got 2.5." },
    ]);
    expect(one("post_announcements", { channels: "#general", requireApproval: "yes" })).toEqual([
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.channels must be a list of strings; got a string." },
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.requireApproval must be true or false; got a string." },
    ]);
    expect(one("post_announcements", { channels: ["#general", 7, null, { name: "x" }], requireApproval: null })).toEqual([
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.channels[1] must be a string; got 7." },
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.channels[2] must be a string; got null." },
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.channels[3] must be a string; got an object." },
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.requireApproval must be true or false; got null." },
    ]);
  });

  it("rejects integers outside their bounds and accepts the bounds themselves", () => {
    expect(one("search_memory", { maxMemories: 0 })).toEqual([
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be between 1 and 20; got 0." },
    ]);
    expect(one("search_memory", { maxMemories: 21 })).toEqual([
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be between 1 and 20; got 21." },
    ]);
    for (const maxMemories of [1, 20]) expect(check(["search_memory"], { search_memory: { maxMemories } }).ok).toBe(true);
  });

  it("rejects lists with too many entries, or entries too long or empty", () => {
    const languages = (count: number) => Array.from({ length: count }, (_, index) => `l${index}`);
    expect(check(["translate_messages"], { translate_messages: { targetLanguages: languages(10) } }).ok).toBe(true);
    expect(one("translate_messages", { targetLanguages: languages(11) })).toEqual([
      { capabilityId: "translate_messages", error: "capabilityConfigs.translate_messages.targetLanguages may hold at most 10 entries; got 11." },
    ]);
    expect(check(["translate_messages"], { translate_messages: { targetLanguages: ["x".repeat(16)] } }).ok).toBe(true);
    expect(one("translate_messages", { targetLanguages: ["de", "x".repeat(17), ""] })).toEqual([
      { capabilityId: "translate_messages", error: "capabilityConfigs.translate_messages.targetLanguages[1] may be at most 16 characters long; got 17." },
      { capabilityId: "translate_messages", error: "capabilityConfigs.translate_messages.targetLanguages[2] must not be empty." },
    ]);
  });

  it("rejects config for a capability that is not enabled in the same request", () => {
    expect(problemsOf(check(["cite_sources"], { search_memory: { maxMemories: 5 } }))).toEqual([
      { capabilityId: "search_memory", error: "search_memory has a config but is not enabled in this request." },
    ]);
  });

  it("rejects config fields a capability does not have, and config for one that takes none", () => {
    expect(one("search_memory", { maxMemories: 5, maxmemories: 5, __proto__: 1 } as Record<string, unknown>)).toEqual([
      { capabilityId: "search_memory", error: 'search_memory has no config field "maxmemories".' },
    ]);
    expect(one("search_memory", JSON.parse('{"maxMemories": 5, "__proto__": 1, "constructor": 2}'))).toEqual([
      { capabilityId: "search_memory", error: 'search_memory has no config field "__proto__".' },
      { capabilityId: "search_memory", error: 'search_memory has no config field "constructor".' },
    ]);
    expect(one("cite_sources", {})).toEqual([{ capabilityId: "cite_sources", error: "cite_sources takes no configuration." }]);
    expect(problemsOf(check([], { answer_questions: {} }))).toEqual([{ capabilityId: "answer_questions", error: "answer_questions takes no configuration." }]);
  });

  it("rejects config for unknown capabilities, and a config that is not an object", () => {
    expect(problemsOf(check([], JSON.parse('{"nope": {}, "__proto__": {}, "toString": {}}')))).toEqual([
      { capabilityId: "nope", error: 'capabilityConfigs names unknown capability "nope".' },
      { capabilityId: "__proto__", error: 'capabilityConfigs names unknown capability "__proto__".' },
      { capabilityId: "toString", error: 'capabilityConfigs names unknown capability "toString".' },
    ]);
    expect(problemsOf(check(["search_memory"], { search_memory: [5] as unknown as Record<string, unknown> }))).toEqual([
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory must be an object; got a list." },
    ]);
  });
});

describe("several problems at once", () => {
  it("reports every problem, request-wide first, then each id in order, then each config", () => {
    const result = check(
      ["draft_messages", "summarize_incidents", "nope", "search_memory", "draft_messages", "post_announcements"],
      {
        search_memory: { maxMemories: 50, extra: true },
        post_announcements: { channels: ["#general"] },
        cite_sources: {},
        ghost: {},
      },
      { assistantType: "org_shared", tier: "spark" },
    );
    expect(problemsOf(result)).toEqual([
      { error: "The spark tier allows at most 3 capabilities, answer_questions included; 6 were given." },
      { capabilityId: "draft_messages", error: "draft_messages is for personal (employee_personal) assistants only." },
      { capabilityId: "draft_messages", error: 'Capability "draft_messages" is listed more than once.' },
      { capabilityId: "summarize_incidents", error: "summarize_incidents needs the seed tier or above; this organization is on the spark tier." },
      { capabilityId: "nope", error: 'Unknown capability "nope".' },
      { capabilityId: "post_announcements", error: "post_announcements needs the seed tier or above; this organization is on the spark tier." },
      { capabilityId: "search_memory", error: "capabilityConfigs.search_memory.maxMemories must be between 1 and 20; got 50." },
      { capabilityId: "search_memory", error: 'search_memory has no config field "extra".' },
      { capabilityId: "post_announcements", error: "capabilityConfigs.post_announcements.requireApproval is required." },
      { capabilityId: "cite_sources", error: "cite_sources has a config but is not enabled in this request." },
      { capabilityId: "ghost", error: 'capabilityConfigs names unknown capability "ghost".' },
    ]);
  });
});

describe("normalization", () => {
  it("returns answer_questions first, the given order without repeats, and fresh configs in that order", () => {
    const configs: Configs = {
      translate_messages: { targetLanguages: ["de"] },
      search_memory: { maxMemories: 3 },
    };
    const result = check(["search_memory", "cite_sources", "translate_messages"], configs);
    expect(result).toEqual({
      ok: true,
      capabilities: ["answer_questions", "search_memory", "cite_sources", "translate_messages"],
      capabilityConfigs: { search_memory: { maxMemories: 3 }, translate_messages: { targetLanguages: ["de"] } },
    });
    if (!result.ok) return;
    expect(Object.keys(result.capabilityConfigs)).toEqual(["search_memory", "translate_messages"]);
    (configs.translate_messages!.targetLanguages as string[]).push("fr");
    expect(result.capabilityConfigs.translate_messages).toEqual({ targetLanguages: ["de"] });
  });

  it("gives the same answer for the same input", () => {
    const input = { capabilities: ["nope", "search_memory"], capabilityConfigs: { search_memory: { maxMemories: "x" } } };
    const target = { assistantType: "employee_personal", tier: "free" } as const;
    expect(checkCapabilityUpdate(input, target)).toEqual(checkCapabilityUpdate(input, target));
  });
});

describe("hostile input", () => {
  // The problem list stops at MAX_LISTED_PROBLEMS entries plus one that counts the rest.
  it("answers 100 ids and configs of 100,000 keys and deeply nested arrays with a bounded problem list", () => {
    let nested: unknown = [];
    for (let depth = 0; depth < 100_000; depth += 1) nested = [nested];
    const huge = "z".repeat(1_000_000);
    const searchConfig: Record<string, unknown> = { maxMemories: nested };
    for (let index = 0; index < 100_000; index += 1) searchConfig[`field_${index}`] = nested;
    const configs: Configs = { search_memory: searchConfig, translate_messages: { targetLanguages: [nested, huge, ...Array(1_000_000).fill("de")] } };
    for (let index = 0; index < 100_000; index += 1) configs[`capability_${index}`] = { nested };
    configs[huge] = { [huge]: huge };
    const ids = [...Array.from({ length: 98 }, (_, index) => `unknown_${String(index).padStart(56, "0")}`), "search_memory", "translate_messages"];

    const problems = problemsOf(check(ids, configs, { tier: "spark" }));

    // 1 tier limit, 98 unknown ids, 1 wrong type and 100,000 unknown fields for search_memory, 1 over-long list,
    // 100,000 + 1 unknown capabilities in capabilityConfigs.
    const total = 1 + 98 + 1 + 100_000 + 1 + 100_001;
    expect(problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(problems[0]).toEqual({ error: "The spark tier allows at most 3 capabilities, answer_questions included; 101 were given." });
    expect(problems.at(-1)).toEqual({ error: `And ${total - MAX_LISTED_PROBLEMS} more problems not listed.` });
    for (const problem of problems) expect(problem.error.length).toBeLessThan(200);
  });

  it("quotes at most 64 characters of an offending id or field name", () => {
    const long = "q".repeat(100_000);
    const problems = problemsOf(check([long, "search_memory"], { search_memory: { maxMemories: 1, [long]: 1 }, [`${long}!`]: {} }));
    expect(problems).toEqual([
      { capabilityId: `${"q".repeat(64)}…`, error: `Unknown capability "${"q".repeat(64)}…".` },
      { capabilityId: "search_memory", error: `search_memory has no config field "${"q".repeat(64)}…".` },
      { capabilityId: `${"q".repeat(64)}…`, error: `capabilityConfigs names unknown capability "${"q".repeat(64)}…".` },
    ]);
  });

  it("reports the wrong type of a deeply nested value without walking it", () => {
    let nested: unknown = 1;
    for (let depth = 0; depth < 100_000; depth += 1) nested = [nested];
    expect(problemsOf(check(["daily_briefing"], { daily_briefing: { sendAtHour: nested, includeCalendar: nested } }, { assistantType: "employee_personal" }))).toEqual([
      { capabilityId: "daily_briefing", error: "capabilityConfigs.daily_briefing.sendAtHour must be an integer; got a list." },
      { capabilityId: "daily_briefing", error: "capabilityConfigs.daily_briefing.includeCalendar must be true or false; got a list." },
    ]);
  });
});
