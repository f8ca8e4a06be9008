import type { TAssistantType, TCapabilityConfigs, TConfigField, TTier } from "@engram/contract";
import { ALWAYS_ENABLED_CAPABILITY, type CapabilityDefinition, findCapability } from "./registry";
import { assignableTo } from "./registry-views";
import { capabilityLimit, meetsTier } from "./tiers";

export interface CapabilityUpdate {
  capabilities: readonly string[];
  capabilityConfigs: TCapabilityConfigs;
}

export interface CapabilityUpdateTarget {
  assistantType: TAssistantType;
  tier: TTier;
}

/** One problem with an update; capabilityId whenever it belongs to one capability. */
export interface CapabilityProblem {
  capabilityId?: string;
  error: string;
}

export type CapabilityUpdateResult =
  | { ok: true; capabilities: string[]; capabilityConfigs: TCapabilityConfigs }
  | { ok: false; problems: CapabilityProblem[] };

/**
 * A hostile body can hold a problem for each of 100,000 config keys: the list stops at this many entries,
 * followed by one entry that counts the rest.
 */
export const MAX_LISTED_PROBLEMS = 50;

/** How much of an offending id or field name a message quotes. */
const MAX_QUOTED_LENGTH = 64;

const short = (text: string) => (text.length > MAX_QUOTED_LENGTH ? `${text.slice(0, MAX_QUOTED_LENGTH)}…` : text);
const quote = (text: string) => JSON.stringify(short(text));

class Problems {
  readonly listed: CapabilityProblem[] = [];
  private unlisted = 0;

  add(capabilityId: string | undefined, error: string): void {
    if (this.listed.length >= MAX_LISTED_PROBLEMS) this.unlisted += 1;
    else this.listed.push(capabilityId === undefined ? { error } : { capabilityId: short(capabilityId), error });
  }

  get any(): boolean {
    return this.listed.length > 0;
  }

  all(): CapabilityProblem[] {
    return this.unlisted === 0 ? this.listed : [...this.listed, { error: `And ${this.unlisted} more problems not listed.` }];
  }
}

/**
 * Checks a PATCH of an assistant's capabilities against the registry, the assistant's type and the organization's
 * tier, reporting every problem at once. Work is linear in the input: config values are inspected only as deep
 * as their field's type needs, and never written into messages.
 */
export function checkCapabilityUpdate(update: CapabilityUpdate, target: CapabilityUpdateTarget): CapabilityUpdateResult {
  const problems = new Problems();
  const given = new Set<string>();
  const repeated = new Set<string>();
  for (const id of update.capabilities) (given.has(id) ? repeated : given).add(id);

  const count = given.size + (given.has(ALWAYS_ENABLED_CAPABILITY) ? 0 : 1);
  const limit = capabilityLimit(target.tier);
  if (limit !== null && count > limit) {
    problems.add(undefined, `The ${target.tier} tier allows at most ${limit} capabilities, ${ALWAYS_ENABLED_CAPABILITY} included; ${count} were given.`);
  }

  for (const id of given) {
    const definition = findCapability(id);
    if (definition === undefined) problems.add(id, `Unknown capability ${quote(id)}.`);
    else checkAssignable(definition, target, problems);
    if (repeated.has(id)) problems.add(id, `Capability ${quote(id)} is listed more than once.`);
  }

  const enabled = [ALWAYS_ENABLED_CAPABILITY, ...[...given].filter((id) => id !== ALWAYS_ENABLED_CAPABILITY)];
  const configs = update.capabilityConfigs;
  const checkedConfigs: TCapabilityConfigs = {};
  for (const id of enabled) {
    const definition = findCapability(id);
    if (definition === undefined || definition.configFields.length === 0) continue;
    const config = Object.hasOwn(configs, id) ? configs[id] : {};
    const checked = checkConfig(definition, config, problems);
    if (checked) checkedConfigs[id] = checked;
  }

  for (const id of Object.keys(configs)) {
    const definition = findCapability(id);
    if (definition === undefined) {
      // A listed unknown id has been reported already.
      if (!given.has(id)) problems.add(id, `capabilityConfigs names unknown capability ${quote(id)}.`);
    } else if (id !== ALWAYS_ENABLED_CAPABILITY && !given.has(id)) {
      problems.add(id, `${id} has a config but is not enabled in this request.`);
    } else if (definition.configFields.length === 0) {
      problems.add(id, `${id} takes no configuration.`);
    }
  }

  if (problems.any) return { ok: false, problems: problems.all() };
  return { ok: true, capabilities: enabled, capabilityConfigs: checkedConfigs };
}

function checkAssignable(definition: CapabilityDefinition, target: CapabilityUpdateTarget, problems: Problems): void {
  const { id, scope, tierRequirement } = definition;
  if (!assignableTo(definition, target.assistantType)) {
    const only = scope === "organization" ? "organization-wide (org_shared)" : "personal (employee_personal)";
    problems.add(id, `${id} is for ${only} assistants only.`);
  }
  if (!meetsTier(target.tier, tierRequirement)) {
    problems.add(id, `${id} needs the ${tierRequirement} tier or above; this organization is on the ${target.tier} tier.`);
  }
}

/** Checks one enabled capability's config; returns a copy of its values, or undefined when it is not an object. */
function checkConfig(definition: CapabilityDefinition, config: unknown, problems: Problems): Record<string, unknown> | undefined {
  const { id, configFields } = definition;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    problems.add(id, `capabilityConfigs.${id} must be an object; got ${describe(config)}.`);
    return undefined;
  }
  const values = config as Record<string, unknown>;
  const checked: Record<string, unknown> = {};
  for (const field of configFields) {
    const path = `capabilityConfigs.${id}.${field.name}`;
    if (!Object.hasOwn(values, field.name)) {
      problems.add(id, `${path} is required.`);
      continue;
    }
    const value = values[field.name];
    const errors = checkValue(field, value, path);
    for (const error of errors) problems.add(id, error);
    if (errors.length === 0) checked[field.name] = Array.isArray(value) ? [...value] : value;
  }
  for (const name of Object.keys(values)) {
    if (!configFields.some((field) => field.name === name)) problems.add(id, `${id} has no config field ${quote(name)}.`);
  }
  return checked;
}

/** The value's problems, each a message naming `path`; empty when it fits the field. */
function checkValue(field: TConfigField, value: unknown, path: string): string[] {
  switch (field.type) {
    case "boolean":
      return typeof value === "boolean" ? [] : [`${path} must be true or false; got ${describe(value)}.`];
    case "integer": {
      if (typeof value !== "number" || !Number.isInteger(value)) return [`${path} must be an integer; got ${describe(value)}.`];
      const outside = (field.min !== undefined && value < field.min) || (field.max !== undefined && value > field.max);
      return outside ? [`${path} must be ${range(field.min, field.max)}; got ${value}.`] : [];
    }
    case "string_list": {
      if (!Array.isArray(value)) return [`${path} must be a list of strings; got ${describe(value)}.`];
      // Checked before the entries are read, so a long list costs nothing.
      if (field.maxItems !== undefined && value.length > field.maxItems) return [`${path} may hold at most ${field.maxItems} entries; got ${value.length}.`];
      const errors: string[] = [];
      // An index loop rather than forEach, which skips the holes of a sparse array.
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        const at = `${path}[${index}]`;
        if (typeof item !== "string") errors.push(`${at} must be a string; got ${describe(item)}.`);
        else if (item.length === 0) errors.push(`${at} must not be empty.`);
        else if (field.maxItemLength !== undefined && item.length > field.maxItemLength) {
          errors.push(`${at} may be at most ${field.maxItemLength} characters long; got ${item.length}.`);
        }
      }
      return errors;
    }
  }
}

function range(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max}`;
}

/** What a value is, in a few words: numbers, booleans and null as themselves, anything else by its kind. */
function describe(value: unknown): string {
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return "a string";
  if (typeof value === "object") return "an object";
  return typeof value === "undefined" ? "nothing" : `a ${typeof value}`;
}
