import { baseLevelActivation } from "@engram/retrieval";
import { chunks } from "../../kernel/chunks";
import { type ProcessResult, type ReflectionProcess, SNAPSHOTS_PER_STATEMENT } from "../process";
import type { ReflectionMemory } from "../records";
import { scopePages } from "./scope-pages";

/** A stored activation this close to the current one is left as it is. */
const UNCHANGED = 1e-6;

/** The activation retrieval ranks a memory by, at `now`: its encode and every reinforcement are uses. */
export function activationAt(memory: ReflectionMemory, now: Date): number {
  return baseLevelActivation({ recentUses: memory.recentUses, totalUses: memory.reinforcementCount + 1, firstUse: memory.createdAt }, now);
}

/**
 * Brings the stored activation of durable memories up to date as time passes. Ranking computes activation
 * live; the stored snapshot is what metrics and staleness read. Each page's new values are written in one
 * statement, and only those that moved: refreshing a figure changes no memory, so it writes no history
 * and no reflection event (the run's counts record it). `actions` counts the snapshots written.
 */
export const activationUpkeepProcess: ReflectionProcess = {
  name: "activation",
  async run(context): Promise<ProcessResult> {
    const now = context.clock();
    let examined = 0;
    let actions = 0;
    for await (const page of scopePages(context, ["durable"])) {
      examined += page.length;
      const values = page.flatMap((memory) => {
        const activation = activationAt(memory, now);
        if (!Number.isFinite(activation)) return [];
        const moved = memory.activation === null || Math.abs(memory.activation - activation) > UNCHANGED;
        return moved ? [{ id: memory.id, activation }] : [];
      });
      for (const chunk of chunks(values, SNAPSHOTS_PER_STATEMENT)) {
        actions += await context.memories.setActivations(context.scope, chunk, now);
        await context.pause();
      }
    }
    return { examined, actions };
  },
};
