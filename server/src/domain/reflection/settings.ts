import { type TReflectionSettings, type TReflectionSettingsPatch, ZReflectionSettings } from "@engram/contract";

/**
 * Reflection is on by default, hourly, with every process on but automatic promotion off: promoting what
 * nobody reviewed is the one thing an organization must choose. Nothing reflection does erases anything.
 */
export const DEFAULT_REFLECTION_SETTINGS: TReflectionSettings = {
  enabled: true,
  intervalMinutes: 60,
  processes: {
    duplicates: { enabled: true, similarity: 0.85 },
    contradictions: { enabled: true },
    staleness: { enabled: true, staleAfterDays: 90, maxConfidence: 0.5 },
    activation: { enabled: true },
    candidates: {
      enabled: true,
      autoPromote: false,
      promoteMinConfidence: 0.9,
      promoteMinReinforcements: 2,
      promoteMinOccurrences: 2,
      expireAfterDays: 30,
    },
  },
};

/** Stored settings over the defaults, so a setting added later has its default for organizations that saved before. */
export function settingsFrom(stored: unknown): TReflectionSettings {
  const base = structuredClone(DEFAULT_REFLECTION_SETTINGS);
  if (!stored || typeof stored !== "object") return base;
  const merged = applyPatch(base, stored as TReflectionSettingsPatch);
  const parsed = ZReflectionSettings.safeParse(merged);
  return parsed.success ? parsed.data : base;
}

/** The settings with a (validated) patch applied: each process's fields replace only those given. */
export function applyPatch(settings: TReflectionSettings, patch: TReflectionSettingsPatch): TReflectionSettings {
  const processes = { ...settings.processes };
  for (const [name, changes] of Object.entries(patch.processes ?? {})) {
    const key = name as keyof TReflectionSettings["processes"];
    if (changes && Object.hasOwn(processes, key)) processes[key] = { ...processes[key], ...changes } as never;
  }
  return {
    enabled: patch.enabled ?? settings.enabled,
    intervalMinutes: patch.intervalMinutes ?? settings.intervalMinutes,
    processes,
  };
}
