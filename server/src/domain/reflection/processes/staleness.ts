import type { ProcessResult, ReflectionContext, ReflectionProcess } from "../process";
import type { ReflectionMemory } from "../records";
import { type Change, applyChanges, flagChange, scopePages } from "./scope-pages";

const DAY_MS = 24 * 60 * 60 * 1000;
const days = (count: number) => `${count} day${count === 1 ? "" : "s"}`;

/** A memory is last used when it was written or last reinforced, whichever is later. */
const lastUse = (memory: ReflectionMemory) =>
  memory.lastReinforcedAt && memory.lastReinforcedAt > memory.createdAt ? memory.lastReinforcedAt : memory.createdAt;

/**
 * Durable memories unused for `staleAfterDays` whose confidence is under `maxConfidence` are flagged stale
 * (`staleSince`). The flag follows the rule: a flagged memory that no longer meets it (used again, or the
 * thresholds changed) has its flag cleared, with an event saying why. Flagging changes neither state nor
 * ranking; it marks what a person may want to review.
 */
export const stalenessProcess: ReflectionProcess = {
  name: "staleness",
  async run(ctx: ReflectionContext): Promise<ProcessResult> {
    const { staleAfterDays, maxConfidence } = ctx.settings.processes.staleness;
    const now = ctx.clock();
    let examined = 0;
    let actions = 0;
    for await (const page of scopePages(ctx, ["durable"])) {
      examined += page.length;
      const changes: Change[] = [];
      for (const memory of page) {
        const used = lastUse(memory);
        const daysUnused = Math.floor((now.getTime() - used.getTime()) / DAY_MS);
        const lowConfidence = memory.confidence < maxConfidence;
        const stale = daysUnused >= staleAfterDays && lowConfidence;
        if (stale === (memory.staleSince !== null)) continue;
        const confidence = memory.confidence.toFixed(2);
        const reason = stale
          ? `flagged stale: unused for ${days(daysUnused)} (since ${used.toISOString()}; stale after ${staleAfterDays}) with confidence ${confidence} under ${maxConfidence}`
          : `stale flag cleared: ${lowConfidence ? `used ${days(daysUnused)} ago (stale after ${staleAfterDays})` : `confidence ${confidence} is not under ${maxConfidence}`}`;
        changes.push(
          flagChange(
            ctx,
            {
              memoryId: memory.id,
              process: "staleness",
              action: "flagged_stale",
              reason,
              details: { stale, daysUnused, confidence: memory.confidence, lastUsedAt: used.toISOString() },
              state: "durable",
              set: { staleSince: stale ? now : null },
            },
            now,
          ),
        );
      }
      actions += await applyChanges(ctx, changes);
    }
    return { examined, actions };
  },
};
