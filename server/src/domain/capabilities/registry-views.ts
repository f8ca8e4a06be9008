import type { TAssistantType, TCapabilityEntry, TCapabilityScope, TTier, ZRegistryAssistantType } from "@engram/contract";
import type { z } from "zod";
import { type CapabilityDefinition, capabilityRegistry, toRegistryEntry } from "./registry";
import { meetsTier } from "./tiers";

export type TRegistryAssistantType = z.infer<typeof ZRegistryAssistantType>;

/** `organization` capabilities go only to org_shared assistants, `user` ones only to personal ones. */
export function assignableTo(definition: CapabilityDefinition, assistantType: TAssistantType): boolean {
  if (definition.scope === "both") return true;
  return definition.scope === "organization" ? assistantType === "org_shared" : assistantType === "employee_personal";
}

export interface RegistryView {
  capabilities: TCapabilityEntry[];
  grouped: Record<TCapabilityScope, TCapabilityEntry[]>;
  total: number;
}

/** The registry, optionally narrowed to one assistant type and one category (exact match), grouped by scope. */
export function registryView(filter: { assistantType?: TRegistryAssistantType; category?: string } = {}): RegistryView {
  const assistantType = filter.assistantType === "organization_wide" ? "org_shared" : filter.assistantType;
  const capabilities = capabilityRegistry
    .filter((definition) => assistantType === undefined || assignableTo(definition, assistantType))
    // An empty category (`?category=`) filters nothing, like an absent one.
    .filter((definition) => !filter.category || definition.category === filter.category)
    .map(toRegistryEntry);
  const grouped: Record<TCapabilityScope, TCapabilityEntry[]> = { organization: [], user: [], both: [] };
  for (const entry of capabilities) grouped[entry.scope].push(entry);
  return { capabilities, grouped, total: capabilities.length };
}

export interface AvailableCapabilities {
  capabilities: TCapabilityEntry[];
  /** By category, in registry order; only categories that have entries. */
  grouped: Record<string, TCapabilityEntry[]>;
}

/** What an assistant of this type may be given in an organization on this tier. */
export function availableCapabilities(assistantType: TAssistantType, tier: TTier): AvailableCapabilities {
  const capabilities = capabilityRegistry
    .filter((definition) => assignableTo(definition, assistantType) && meetsTier(tier, definition.tierRequirement))
    .map(toRegistryEntry);
  const byCategory = new Map<string, TCapabilityEntry[]>();
  for (const entry of capabilities) {
    const group = byCategory.get(entry.category);
    if (group) group.push(entry);
    else byCategory.set(entry.category, [entry]);
  }
  return { capabilities, grouped: Object.fromEntries(byCategory) };
}

/** The registry's categories, each once, in display order. */
export function capabilityCategories(): string[] {
  return [...new Set(capabilityRegistry.map((definition) => definition.category))];
}
