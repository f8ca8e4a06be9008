import { type TReflectionSettings, type TReflectionSettingsPatch, ZReflectionSettings } from "@engram/contract";
import { z } from "zod";
import { isApiError } from "../../api/api-error";
import { formatNumber, humanize } from "../../ui/format";

/** One setting as the form shows it; bounds come from the contract's schema, so form and server agree. */
export interface SettingField {
  /** Dotted path in the settings, as the server names it in errors: "processes.duplicates.similarity". */
  path: string;
  label: string;
  hint: string;
  kind: "toggle" | "number";
  min?: number;
  max?: number;
  integer?: boolean;
}

interface SettingGroup {
  id: string;
  title: string;
  description: string;
  fields: SettingField[];
}

/** A toggle is a boolean; a number field keeps its text until saved, so a half-typed value is not lost. */
export type FormValues = Record<string, boolean | string>;

const labels: Record<string, { label: string; hint?: string }> = {
  enabled: { label: "Run on a schedule", hint: "Off stops scheduled runs; Run now still works." },
  intervalMinutes: { label: "Run every (minutes)" },
  "processes.duplicates.enabled": { label: "Merge near-duplicates" },
  "processes.duplicates.similarity": { label: "Similarity to merge", hint: "Higher merges only closer copies." },
  "processes.contradictions.enabled": { label: "Demote overturned memories" },
  "processes.staleness.enabled": { label: "Flag stale memories" },
  "processes.staleness.staleAfterDays": { label: "Stale after (days unused)" },
  "processes.staleness.maxConfidence": { label: "Only at or below confidence" },
  "processes.activation.enabled": { label: "Refresh activation figures" },
  "processes.candidates.enabled": { label: "Review candidates" },
  "processes.candidates.autoPromote": { label: "Promote automatically", hint: "Off, corroborated candidates wait for a person." },
  "processes.candidates.promoteMinConfidence": { label: "Promote at confidence" },
  "processes.candidates.promoteMinReinforcements": { label: "Promote after reinforcements" },
  "processes.candidates.promoteMinOccurrences": { label: "Promote after occurrences" },
  "processes.candidates.expireAfterDays": { label: "Expire candidates after (days)" },
};

const processDescriptions: Record<keyof TReflectionSettings["processes"], string> = {
  duplicates: "Suppresses copies of a memory (a person can restore them) and reinforces the one kept.",
  contradictions: "Lowers the confidence of memories newer knowledge overturned and links their replacement.",
  staleness: "Flags low-confidence memories nobody has used in a long time.",
  activation: "Keeps the stored activation figures, which the charts show, current.",
  candidates: "Promotes corroborated candidates when allowed, and expires candidates nobody confirmed.",
};

function boundsHint(schema: z.ZodNumber): string {
  const { minValue, maxValue, isInt } = schema;
  const range = minValue !== null && maxValue !== null ? `${formatNumber(minValue)} to ${formatNumber(maxValue)}` : "";
  return isInt ? `A whole number, ${range}.` : `From ${range}.`;
}

function fieldOf(path: string, schema: z.ZodTypeAny): SettingField {
  const name = labels[path] ?? { label: humanize(path.split(".").at(-1) ?? path) };
  // By type name rather than instanceof: the contract may be bundled with its own copy of zod.
  if (schema._def.typeName === z.ZodFirstPartyTypeKind.ZodNumber) {
    const number = schema as z.ZodNumber;
    const hint = [boundsHint(number), name.hint].filter(Boolean).join(" ");
    return { path, label: name.label, hint, kind: "number", min: number.minValue ?? undefined, max: number.maxValue ?? undefined, integer: number.isInt };
  }
  return { path, label: name.label, hint: name.hint ?? "", kind: "toggle" };
}

const { processes, ...general } = ZReflectionSettings.shape;

/** Every setting, walked from the schema so a setting added to the contract appears here too. */
export const settingGroups: SettingGroup[] = [
  { id: "schedule", title: "Schedule", description: "These settings apply to every environment.", fields: Object.entries(general).map(([key, schema]) => fieldOf(key, schema)) },
  ...Object.entries(processes.shape).map(([process, schema]) => ({
    id: process,
    title: humanize(process),
    description: processDescriptions[process as keyof typeof processDescriptions] ?? "",
    fields: Object.entries(schema.shape as z.ZodRawShape).map(([key, field]) => fieldOf(`processes.${process}.${key}`, field)),
  })),
];

const allFields = settingGroups.flatMap((group) => group.fields);

const read = (settings: TReflectionSettings, path: string): unknown =>
  path.split(".").reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), settings);

export function valuesOf(settings: TReflectionSettings): FormValues {
  return Object.fromEntries(allFields.map((field) => [field.path, field.kind === "toggle" ? Boolean(read(settings, field.path)) : String(read(settings, field.path))]));
}

function assign(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop()!;
  let node = target;
  for (const key of keys) node = (node[key] ??= {}) as Record<string, unknown>;
  node[last] = value;
}

/**
 * Only what the person changed, so a save never overwrites a setting someone else changed meanwhile. A number
 * that does not parse is reported here; bounds are the server's to check, and it names the field at fault.
 */
export function patchOf(values: FormValues, baseline: FormValues): { patch: TReflectionSettingsPatch; changed: number; problems: Record<string, string> } {
  const patch: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  let changed = 0;
  for (const field of allFields) {
    const value = values[field.path];
    if (value === baseline[field.path]) continue;
    if (field.kind === "number") {
      const text = String(value).trim();
      const number = Number(text);
      if (text === "" || !Number.isFinite(number)) {
        problems[field.path] = "Enter a number.";
        continue;
      }
      if (number === Number(baseline[field.path])) continue;
      assign(patch, field.path, number);
    } else {
      assign(patch, field.path, value);
    }
    changed += 1;
  }
  return { patch: patch as TReflectionSettingsPatch, changed, problems };
}

/**
 * The `/api` failure shape is `{ success, error, message }` only, so the field at fault is read from the message,
 * which the server starts with its path ("processes.duplicates.similarity: …"); the longest matching path wins.
 */
export function fieldProblemsOf(error: unknown): { fields: Record<string, string>; unplaced: boolean } {
  if (!isApiError(error) || error.status !== 400) return { fields: {}, unplaced: true };
  const byLength = [...allFields].sort((a, b) => b.path.length - a.path.length);
  const field = byLength.find((candidate) => error.message.startsWith(`${candidate.path}:`));
  if (!field) return { fields: {}, unplaced: true };
  return { fields: { [field.path]: error.message.slice(field.path.length + 1).trim() }, unplaced: false };
}
