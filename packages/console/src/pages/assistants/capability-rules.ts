import { type TAssistantType, type TCapabilityConfigs, type TCapabilityEntry, type TConfigField, type TTier, ZTier } from "@engram/contract";
import type { ValidationProblem } from "../../api/api-error";

/** A config value as the form holds it: numbers and lists as the text typed, booleans as themselves. */
export type FieldDraft = string | boolean;

export interface CapabilityDraft {
  /** Enabled capability ids, in the order they were enabled. */
  enabled: string[];
  configs: Record<string, Record<string, FieldDraft>>;
}

const tierRank = (tier: TTier) => ZTier.options.indexOf(tier);

/** Why a capability the server does not offer this assistant is unavailable: its scope, its tier, or both. */
export function unavailableReason(entry: TCapabilityEntry, assistantType: TAssistantType, tier: TTier): string {
  const reasons: string[] = [];
  if (entry.scope === "organization" && assistantType !== "org_shared") reasons.push("For organization-wide assistants only.");
  if (entry.scope === "user" && assistantType !== "employee_personal") reasons.push("For personal assistants only.");
  if (tierRank(tier) < tierRank(entry.tierRequirement)) reasons.push(`Needs the ${entry.tierRequirement} plan or above; this organization is on ${tier}.`);
  return reasons.length > 0 ? reasons.join(" ") : "Not available for this assistant.";
}

/** The registry in its display order, one group per category. */
export function byCategory(entries: readonly TCapabilityEntry[]): Array<{ category: string; entries: TCapabilityEntry[] }> {
  const groups = new Map<string, TCapabilityEntry[]>();
  for (const entry of entries) groups.set(entry.category, [...(groups.get(entry.category) ?? []), entry]);
  return [...groups].map(([category, grouped]) => ({ category, entries: grouped }));
}

/** The stored set as the form holds it. */
export function draftOf(capabilities: readonly string[], configs: TCapabilityConfigs): CapabilityDraft {
  const asDraft = (value: unknown): FieldDraft => {
    if (typeof value === "boolean") return value;
    if (Array.isArray(value)) return value.map(String).join("\n");
    return value === undefined || value === null ? "" : String(value);
  };
  return {
    enabled: [...capabilities],
    configs: Object.fromEntries(Object.entries(configs).map(([id, config]) => [id, Object.fromEntries(Object.entries(config).map(([name, value]) => [name, asDraft(value)]))])),
  };
}

/**
 * One typed config value, or undefined to leave the field out. The server checks every rule (and says which
 * was broken): the form only turns text into the type the field has.
 */
function fieldValue(field: TConfigField, draft: FieldDraft | undefined): unknown {
  switch (field.type) {
    case "boolean":
      return draft === true;
    case "integer": {
      const text = typeof draft === "string" ? draft.trim() : "";
      if (text === "") return undefined;
      const number = Number(text);
      return Number.isFinite(number) ? number : text;
    }
    case "string_list":
      return typeof draft === "string"
        ? draft
            .split("\n")
            .map((line) => line.trim())
            .filter(Boolean)
        : [];
  }
}

/** The PATCH body: the whole set, with a config for each enabled capability that takes one. */
export function updateBody(draft: CapabilityDraft, fieldsOf: (id: string) => readonly TConfigField[]) {
  const capabilityConfigs: TCapabilityConfigs = {};
  for (const id of draft.enabled) {
    const fields = fieldsOf(id);
    if (fields.length === 0) continue;
    const config: Record<string, unknown> = {};
    for (const field of fields) {
      const value = fieldValue(field, draft.configs[id]?.[field.name]);
      if (value !== undefined) config[field.name] = value;
    }
    capabilityConfigs[id] = config;
  }
  return { capabilities: draft.enabled, capabilityConfigs };
}

/** The server's problems, split into those beside a capability on the page and the rest, shown on top. */
export function placeProblems(problems: readonly ValidationProblem[], shown: ReadonlySet<string>) {
  const byCapability = new Map<string, string[]>();
  const general: string[] = [];
  for (const problem of problems) {
    if (problem.capabilityId && shown.has(problem.capabilityId)) byCapability.set(problem.capabilityId, [...(byCapability.get(problem.capabilityId) ?? []), problem.error]);
    else general.push(problem.error);
  }
  return { byCapability, general };
}

/** "maxMemories" → "Max memories". */
export function fieldLabel(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A field's bounds in words, for the hint under it. */
export function fieldBounds(field: TConfigField): string | null {
  if (field.type === "integer") {
    if (field.min !== undefined && field.max !== undefined) return `A whole number from ${field.min} to ${field.max}.`;
    if (field.min !== undefined) return `A whole number, at least ${field.min}.`;
    if (field.max !== undefined) return `A whole number, at most ${field.max}.`;
    return "A whole number.";
  }
  if (field.type === "string_list") {
    const parts = ["One per line"];
    if (field.maxItems !== undefined) parts.push(`up to ${field.maxItems} entries`);
    if (field.maxItemLength !== undefined) parts.push(`each up to ${field.maxItemLength} characters`);
    return `${parts.join(", ")}.`;
  }
  return null;
}
