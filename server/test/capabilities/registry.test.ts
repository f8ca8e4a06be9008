import { ZCapabilityEntry, ZConfigField, ZConfigFieldType, ZTier } from "@engram/contract";
import { describe, expect, it } from "vitest";
import { ALWAYS_ENABLED_CAPABILITY, capabilityRegistry, findCapability, toRegistryEntry } from "../../src/domain/capabilities/registry";
import { assignableTo, availableCapabilities, capabilityCategories, registryView } from "../../src/domain/capabilities/registry-views";
import { capabilityLimit, meetsTier, tierRank } from "../../src/domain/capabilities/tiers";

const ids = (entries: readonly { id: string }[]) => entries.map((entry) => entry.id);
const fields = capabilityRegistry.flatMap((definition) => definition.configFields);

describe("capability registry", () => {
  it("holds 18 to 22 capabilities with unique snake_case ids", () => {
    expect(capabilityRegistry.length).toBeGreaterThanOrEqual(18);
    expect(capabilityRegistry.length).toBeLessThanOrEqual(22);
    expect(new Set(ids(capabilityRegistry)).size).toBe(capabilityRegistry.length);
    for (const { id } of capabilityRegistry) expect(id).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it("uses every scope, every tier and every config field type", () => {
    expect(new Set(capabilityRegistry.map((definition) => definition.scope))).toEqual(new Set(["organization", "user", "both"]));
    expect(new Set(capabilityRegistry.map((definition) => definition.tierRequirement))).toEqual(new Set(ZTier.options));
    expect(new Set(fields.map((field) => field.type))).toEqual(new Set(ZConfigFieldType.options));
  });

  it("lists config fields exactly for the capabilities that require config, at least six of them", () => {
    for (const definition of capabilityRegistry) expect([definition.id, definition.requiresConfig]).toEqual([definition.id, definition.configFields.length > 0]);
    expect(capabilityRegistry.filter((definition) => definition.requiresConfig).length).toBeGreaterThanOrEqual(6);
  });

  it("bounds every typed config field, with names unique within a capability", () => {
    for (const definition of capabilityRegistry) {
      const names = definition.configFields.map((field) => field.name);
      expect(new Set(names).size).toBe(names.length);
      for (const field of definition.configFields) {
        expect(ZConfigField.parse(field)).toEqual(field);
        expect(field.name.length).toBeLessThanOrEqual(64);
        if (field.type === "integer") expect(field.min! <= field.max!, `${definition.id}.${field.name}`).toBe(true);
        if (field.type === "string_list") expect(field.maxItems! > 0 && field.maxItemLength! > 0, `${definition.id}.${field.name}`).toBe(true);
      }
    }
  });

  it("always enables answer_questions and nothing else", () => {
    expect(capabilityRegistry.filter((definition) => definition.alwaysEnabled).map((definition) => definition.id)).toEqual([ALWAYS_ENABLED_CAPABILITY]);
    expect(findCapability(ALWAYS_ENABLED_CAPABILITY)).toMatchObject({ scope: "both", tierRequirement: "free", requiresConfig: false, executedByEngram: true });
  });

  it("marks exactly Engram's own chat capabilities as carried out by Engram", () => {
    expect(capabilityRegistry.filter((definition) => definition.executedByEngram).map((definition) => definition.id)).toEqual([
      "answer_questions",
      "search_memory",
      "cite_sources",
    ]);
    expect(findCapability("search_memory")).toMatchObject({
      scope: "both",
      tierRequirement: "free",
      requiresConfig: true,
      configFields: [expect.objectContaining({ name: "maxMemories", type: "integer", min: 1, max: 20 })],
    });
    expect(findCapability("cite_sources")).toMatchObject({ scope: "both", tierRequirement: "free", requiresConfig: false, configFields: [] });
  });

  it("turns every definition into an entry with exactly the documented fields", () => {
    for (const definition of capabilityRegistry) {
      const entry = toRegistryEntry(definition);
      expect(ZCapabilityEntry.strict().parse(entry)).toEqual(entry);
      expect(entry.configFields).toEqual(definition.configFields.map((field) => field.name));
    }
  });

  it("finds nothing for unknown ids, including Object.prototype's names", () => {
    for (const id of ["nope", "__proto__", "constructor", "toString", ""]) expect(findCapability(id)).toBeUndefined();
  });
});

describe("tiers", () => {
  it("ranks the tiers lowest first and compares against a requirement", () => {
    expect(ZTier.options.map(tierRank)).toEqual([0, 1, 2, 3, 4]);
    expect(meetsTier("seed", "spark")).toBe(true);
    expect(meetsTier("seed", "seed")).toBe(true);
    expect(meetsTier("seed", "rise")).toBe(false);
    expect(meetsTier("free", "free")).toBe(true);
  });

  it("limits capabilities per tier, without limit on boost", () => {
    expect(ZTier.options.map(capabilityLimit)).toEqual([3, 3, 7, 7, null]);
  });
});

describe("registry views", () => {
  const all = ids(capabilityRegistry);
  const scopes = (scope: string) => ids(capabilityRegistry.filter((definition) => definition.scope === scope));

  it("lists the whole registry grouped by scope when unfiltered", () => {
    const view = registryView();
    expect(ids(view.capabilities)).toEqual(all);
    expect(view.total).toBe(all.length);
    expect(Object.keys(view.grouped)).toEqual(["organization", "user", "both"]);
    expect(ids(view.grouped.organization)).toEqual(scopes("organization"));
    expect(ids(view.grouped.user)).toEqual(scopes("user"));
    expect(ids(view.grouped.both)).toEqual(scopes("both"));
  });

  it("reads organization_wide as org_shared and leaves personal-only capabilities out", () => {
    const shared = registryView({ assistantType: "org_shared" });
    expect(registryView({ assistantType: "organization_wide" })).toEqual(shared);
    expect(ids(shared.capabilities)).toEqual(all.filter((id) => !scopes("user").includes(id)));
    expect(shared.grouped.user).toEqual([]);
    expect(shared.total).toBe(shared.capabilities.length);
  });

  it("leaves organization-only capabilities out for personal assistants", () => {
    const personal = registryView({ assistantType: "employee_personal" });
    expect(ids(personal.capabilities)).toEqual(all.filter((id) => !scopes("organization").includes(id)));
    expect(personal.grouped).toEqual({ organization: [], user: personal.grouped.user, both: personal.grouped.both });
    expect(personal.grouped.user.length).toBeGreaterThan(0);
  });

  it("filters by exact category, alone or with an assistant type, and yields nothing for an unknown one", () => {
    const knowledge = registryView({ category: "Knowledge" });
    expect(knowledge.capabilities.length).toBeGreaterThan(0);
    expect(knowledge.capabilities.every((entry) => entry.category === "Knowledge")).toBe(true);
    expect(ids(knowledge.capabilities)).toEqual(ids(capabilityRegistry.filter((definition) => definition.category === "Knowledge")));
    const personalSupport = registryView({ assistantType: "employee_personal", category: "Support" });
    expect(personalSupport.capabilities.every((entry) => entry.category === "Support" && entry.scope !== "organization")).toBe(true);
    for (const category of ["knowledge", "Knowledge ", "Nope"]) {
      expect(registryView({ category })).toEqual({ capabilities: [], grouped: { organization: [], user: [], both: [] }, total: 0 });
    }
  });

  it("lists the categories once each, in display order", () => {
    expect(capabilityCategories()).toEqual(["Knowledge", "Communication", "Productivity", "Engineering", "Support"]);
  });

  it("applies the scope rules to assistant types", () => {
    const scopeOf = (scope: "organization" | "user" | "both") => capabilityRegistry.find((definition) => definition.scope === scope)!;
    expect(assignableTo(scopeOf("organization"), "org_shared")).toBe(true);
    expect(assignableTo(scopeOf("organization"), "employee_personal")).toBe(false);
    expect(assignableTo(scopeOf("user"), "employee_personal")).toBe(true);
    expect(assignableTo(scopeOf("user"), "org_shared")).toBe(false);
    expect(assignableTo(scopeOf("both"), "org_shared")).toBe(true);
    expect(assignableTo(scopeOf("both"), "employee_personal")).toBe(true);
  });

  it("offers Free organizations a useful choice for both assistant types", () => {
    expect(ids(availableCapabilities("org_shared", "free").capabilities)).toEqual([
      "answer_questions",
      "search_memory",
      "cite_sources",
      "summarize_documents",
      "onboard_new_hires",
      "route_requests",
    ]);
    expect(ids(availableCapabilities("employee_personal", "free").capabilities)).toEqual([
      "answer_questions",
      "search_memory",
      "cite_sources",
      "summarize_documents",
      "draft_messages",
      "track_tasks",
    ]);
  });

  it("makes more available on each higher tier and everything assignable on boost", () => {
    for (const assistantType of ["org_shared", "employee_personal"] as const) {
      const counts = ZTier.options.map((tier) => availableCapabilities(assistantType, tier).capabilities.length);
      for (const [index, count] of counts.entries()) if (index > 0) expect(count).toBeGreaterThanOrEqual(counts[index - 1]!);
      const available = availableCapabilities(assistantType, "boost").capabilities;
      expect(available).toEqual(registryView({ assistantType }).capabilities);
      for (const tier of ZTier.options) {
        for (const entry of availableCapabilities(assistantType, tier).capabilities) expect(meetsTier(tier, entry.tierRequirement)).toBe(true);
      }
    }
    expect(ids(availableCapabilities("org_shared", "spark").capabilities)).not.toContain("summarize_incidents");
    expect(ids(availableCapabilities("org_shared", "seed").capabilities)).toContain("summarize_incidents");
  });

  it("groups what is available by category, in registry order, leaving empty categories out", () => {
    const { capabilities, grouped } = availableCapabilities("employee_personal", "free");
    expect(Object.keys(grouped)).toEqual(["Knowledge", "Communication", "Productivity"]);
    expect(Object.values(grouped).flat()).toEqual(capabilities);
    for (const [category, entries] of Object.entries(grouped)) expect(entries.every((entry) => entry.category === category)).toBe(true);
    expect(Object.keys(availableCapabilities("org_shared", "boost").grouped)).toEqual(capabilityCategories());
  });
});
