import type { TReflectionSettings } from "@engram/contract";
import type { ProcessResult, ReflectionContext, ReflectionProcess } from "../process";
import type { ReflectionMemory } from "../records";
import { type Change, applyChanges, scopePages, stateChange } from "./scope-pages";

const DAY_MS = 24 * 60 * 60 * 1000;

type CandidateSettings = TReflectionSettings["processes"]["candidates"];

/** What corroborates a candidate, each as a phrase for the reason; empty when nothing does. */
export function corroborations(memory: ReflectionMemory, occurrences: number, settings: CandidateSettings): string[] {
  const found: string[] = [];
  if (occurrences >= settings.promoteMinOccurrences) found.push(`its event was seen ${occurrences} times (at least ${settings.promoteMinOccurrences})`);
  if (memory.reinforcementCount >= settings.promoteMinReinforcements) {
    found.push(`reinforced ${memory.reinforcementCount} times (at least ${settings.promoteMinReinforcements})`);
  }
  if (memory.confidence >= settings.promoteMinConfidence) found.push(`confidence ${memory.confidence.toFixed(2)} (at least ${settings.promoteMinConfidence})`);
  return found;
}

/**
 * Corroborated candidates (their event repeated, reinforced, or confident enough) are promoted to durable when
 * the organization turned automatic promotion on; otherwise they wait for a person. A candidate nobody
 * promoted within `expireAfterDays` expires: it is tombstoned, kept with its history for audit.
 */
export const candidatesProcess: ReflectionProcess = {
  name: "candidates",
  async run(ctx: ReflectionContext): Promise<ProcessResult> {
    const settings = ctx.settings.processes.candidates;
    const now = ctx.clock();
    let examined = 0;
    let actions = 0;
    for await (const page of scopePages(ctx, ["candidate"])) {
      examined += page.length;
      const eventIds = page.flatMap((memory) => (memory.eventId ? [memory.eventId] : []));
      const occurrences = await ctx.memories.eventOccurrences(ctx.scope, eventIds);
      const changes: Change[] = [];
      for (const memory of page) {
        const found = corroborations(memory, (memory.eventId && occurrences.get(memory.eventId)) || 0, settings);
        const ageDays = Math.floor((now.getTime() - memory.createdAt.getTime()) / DAY_MS);
        if (settings.autoPromote && found.length > 0) {
          changes.push(
            stateChange(
              ctx,
              {
                memoryId: memory.id,
                process: "candidates",
                action: "promoted",
                reason: `promoted automatically: corroborated, ${found.join("; ")}`,
                details: { corroborations: found },
                from: "candidate",
                to: "durable",
              },
              now,
            ),
          );
        } else if (ageDays >= settings.expireAfterDays) {
          const unpromoted = found.length > 0 ? `corroborated (${found.join("; ")}) but not promoted` : "not corroborated";
          changes.push(
            stateChange(
              ctx,
              {
                memoryId: memory.id,
                process: "candidates",
                action: "expired",
                reason: `expired: a candidate for ${ageDays} days (expires after ${settings.expireAfterDays}), ${unpromoted}; kept for audit`,
                details: { ageDays },
                from: "candidate",
                to: "tombstoned",
              },
              now,
            ),
          );
        }
      }
      actions += await applyChanges(ctx, changes);
    }
    return { examined, actions };
  },
};
