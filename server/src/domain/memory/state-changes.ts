import type { TMemory, TMemoryState } from "@engram/contract";
import { recordUse } from "@engram/retrieval";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import type { Store } from "../store";
import { memoryView } from "./memory-view";
import type { HistoryAction, MemoryRecord } from "./records";

/** Who changes a memory, as its history records them: a token's request or a signed-in person. */
export interface ChangeAuthor {
  /** `token:<name>`, a caller-given actor, or `user:<email>`. */
  actor: string;
  tokenId: string | null;
  requestId: string | null;
}

/** Finds the memory within the caller's boundary; null when it is outside it or absent. */
export type MemoryLookup = (id: string) => Promise<MemoryRecord | null>;

/** The states each state change may start from, and where it leaves the memory. Reinforce works in any state. */
const stateChanges = {
  suppressed: { verb: "suppress", from: ["durable"], to: "suppressed" },
  restored: { verb: "restore", from: ["suppressed"], to: "durable" },
  tombstoned: { verb: "delete", from: ["candidate", "durable", "suppressed"], to: "tombstoned" },
} as const satisfies Record<string, { verb: string; from: readonly TMemoryState[]; to: TMemoryState }>;

export type StateChange = keyof typeof stateChanges;

/**
 * Reinforcing, suppressing, restoring and tombstoning one memory, each with its history row, for every
 * caller: access tokens on /v1 and signed-in people on /api differ only in their lookup and author.
 */
export function memoryStateChanges(store: Pick<Store, "transaction" | "memories">, clock: Clock) {
  async function found(lookup: MemoryLookup, id: string): Promise<MemoryRecord> {
    const memory = await lookup(id);
    // Outside the caller's boundary looks the same as absent: existence is never revealed.
    if (!memory) throw new AppError("memory_not_found", `No memory ${id}.`, "id");
    return memory;
  }

  const historyRow = (change: { memoryId: string; action: HistoryAction; fromState: TMemoryState | null; toState: TMemoryState }, author: ChangeAuthor, reason: string | undefined, at: Date) => ({
    ...change,
    actor: author.actor,
    tokenId: author.tokenId,
    reason: reason ?? null,
    requestId: author.requestId,
    createdAt: at,
  });

  /**
   * Restoring a durable memory undoes reflection's judgment that another replaced it: the link is cleared (and
   * remembered, so reflection does not make it again), the confidence it lowered is set back, and the history
   * says so. Null when a concurrent change came first; a memory nothing superseded cannot be restored.
   */
  async function dismissSupersession(memory: MemoryRecord, author: ChangeAuthor, reason: string | undefined): Promise<{ memory: TMemory } | null> {
    const supersession = await store.memories.supersession(memory.id);
    if (!supersession) {
      throw new AppError("invalid_state_transition", "Cannot restore a durable memory that reflection has not superseded; it must be suppressed, or superseded.");
    }
    const at = clock();
    const confidence = supersession.previousConfidence ?? memory.confidence;
    const why = reason ?? `supersession by ${supersession.supersededBy} dismissed; confidence back to ${confidence.toFixed(2)}`;
    const changed = await store.transaction(async (tx) => {
      const updated = await tx.memories.dismissSupersession(memory.id, supersession.supersededBy, confidence, at);
      if (!updated) return null;
      const changedAt = await tx.memories.appendHistory(historyRow({ memoryId: memory.id, action: "restored", fromState: "durable", toState: "durable" }, author, why, at));
      return { ...updated, updatedAt: changedAt };
    });
    return changed && { memory: memoryView(changed) };
  }

  return {
    /**
     * Checks the state, then changes it with a compare-and-set that is its transaction's first statement: of
     * concurrent changes from one state exactly one wins and writes history, and the others decide again on
     * the state it left (a repeated tombstone answers the tombstone, anything else 409).
     */
    async change(lookup: MemoryLookup, id: string, action: StateChange, author: ChangeAuthor, reason?: string): Promise<{ memory: TMemory }> {
      const { verb, from, to } = stateChanges[action];
      for (;;) {
        const memory = await found(lookup, id);
        if (action === "tombstoned" && memory.state === "tombstoned") return { memory: memoryView(memory) };
        if (action === "restored" && memory.state === "durable") {
          const restored = await dismissSupersession(memory, author, reason);
          if (restored) return restored;
          continue;
        }
        if (!(from as readonly TMemoryState[]).includes(memory.state)) {
          throw new AppError("invalid_state_transition", `Cannot ${verb} a ${memory.state} memory; it must be ${from.join(" or ")}.`);
        }
        const at = clock();
        const changed = await store.transaction(async (tx) => {
          const updated = await tx.memories.changeState(id, memory.state, to, at);
          if (!updated) return null;
          if (to === "tombstoned") await tx.embeddings.remove(id);
          const changedAt = await tx.memories.appendHistory(historyRow({ memoryId: id, action, fromState: memory.state, toState: to }, author, reason, at));
          return { ...updated, updatedAt: changedAt };
        });
        if (changed) return { memory: memoryView(changed) };
        // Another request changed the memory after it was read: each pass means one did, so this ends.
      }
    },

    /** Counts a use of the memory, in whatever state it is, under the row's lock so none is lost. */
    async reinforce(lookup: MemoryLookup, id: string, author: ChangeAuthor, reason?: string): Promise<{ memory: TMemory }> {
      await found(lookup, id);
      const at = clock();
      const memory = await store.transaction(async (tx) => {
        const counted = await tx.memories.recordReinforcement(id, at, recordUse);
        await tx.memories.appendHistory(historyRow({ memoryId: id, action: "reinforced", fromState: counted.state, toState: counted.state }, author, reason, counted.updatedAt));
        return counted;
      });
      return { memory: memoryView(memory) };
    },
  };
}

export type MemoryStateChanges = ReturnType<typeof memoryStateChanges>;
