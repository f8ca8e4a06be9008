import type { TMemoryState } from "@engram/contract";
import { chunks } from "../../kernel/chunks";
import { CHANGES_PER_TRANSACTION, REFLECTION_BATCH, REFLECTION_PAGE_BYTES, type ReflectionContext } from "../process";
import type { PagePosition, ReflectionMemoryRepository } from "../ports";
import type { ReflectionMemory } from "../records";

/**
 * The scope's memories in these states, a page at a time, oldest first (a page of long memories holds fewer). The
 * loop body runs before the next page is read, and the event loop gets a turn between pages.
 */
export async function* scopePages(ctx: ReflectionContext, states: readonly TMemoryState[]): AsyncGenerator<ReflectionMemory[]> {
  let after: PagePosition | null = null;
  for (;;) {
    const page = await ctx.memories.page(ctx.scope, states, after, REFLECTION_BATCH, REFLECTION_PAGE_BYTES);
    if (page.length === 0) return;
    yield page;
    const last = page[page.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
    await ctx.pause();
  }
}

/** One compare-and-set change to one memory; `apply` answers false when the memory had changed meanwhile. */
export interface Change {
  memoryId: string;
  apply(memories: ReflectionMemoryRepository): Promise<boolean>;
}

type StateChange = Parameters<ReflectionMemoryRepository["changeState"]>[2];
type FlagChange = Parameters<ReflectionMemoryRepository["flag"]>[2];

/** A move of the memory from one state to another, as a change of this run. */
export const stateChange = (ctx: ReflectionContext, change: StateChange, at: Date): Change => ({
  memoryId: change.memoryId,
  apply: (memories) => memories.changeState(ctx.scope, ctx.runId, change, at),
});

/** Flags set on the memory in its state, as a change of this run. */
export const flagChange = (ctx: ReflectionContext, change: FlagChange, at: Date): Change => ({
  memoryId: change.memoryId,
  apply: (memories) => memories.flag(ctx.scope, ctx.runId, change, at),
});

/**
 * A page's changes (each with its history and event), a few per transaction with a turn of the event loop
 * between; answers how many took effect. Each change is its own compare-and-set, so the grouping is only
 * about how long one step takes.
 */
export async function applyChanges(ctx: ReflectionContext, changes: readonly Change[]): Promise<number> {
  let applied = 0;
  for (const step of chunks(changes, CHANGES_PER_TRANSACTION)) {
    applied += await ctx.transaction(async (memories) => {
      await memories.lock(ctx.scope, step.map((change) => change.memoryId));
      let done = 0;
      for (const change of step) if (await change.apply(memories)) done++;
      return done;
    });
    await ctx.pause();
  }
  return applied;
}
