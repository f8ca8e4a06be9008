import type { TCandidate, TEnvironment, TMemory } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { memoryView } from "../memory/memory-view";
import type { Store } from "../store";

export interface ReviewInput {
  /** Who reviewed, e.g. `user:alice@example.com`; recorded in the memory's history. */
  actor: string;
  reason?: string;
  /** The request that asked for the review, recorded in the history as the API's changes are; none from the CLI. */
  requestId?: string | null;
  /** The reviewer's organization: another organization's memory is as absent as a missing one. Null for the CLI. */
  orgId?: string | null;
}

/**
 * Review of candidate memories: promotion makes a candidate durable and
 * retrievable; rejection tombstones it, keeping it for provenance. Organization administrators act here,
 * not access tokens, so there is no agent or environment boundary; the organization is the boundary.
 */
export function candidateService(store: Store, { clock }: { clock: Clock }) {
  async function review(memoryId: string, decision: "promoted" | "rejected", input: ReviewInput): Promise<TMemory> {
    return store.transaction(async (tx) => {
      const memory = await tx.memories.findById(memoryId);
      if (!memory || (input.orgId && memory.orgId !== input.orgId)) throw new AppError("memory_not_found", `No memory ${memoryId}.`, "id");
      if (memory.state !== "candidate") {
        throw new AppError("invalid_state_transition", `Only candidates can be ${decision}; memory ${memoryId} is ${memory.state}.`);
      }
      const at = clock();
      const toState = decision === "promoted" ? "durable" : "tombstoned";
      const updated = await tx.memories.changeState(memoryId, "candidate", toState, at);
      if (!updated) throw new AppError("invalid_state_transition", `Memory ${memoryId} was changed by another request; it is no longer a candidate.`);
      const changedAt = await tx.memories.appendHistory({
        memoryId,
        action: decision,
        fromState: "candidate",
        toState,
        actor: input.actor,
        tokenId: null,
        reason: input.reason ?? null,
        requestId: input.requestId ?? null,
        createdAt: at,
      });
      return memoryView({ ...updated, updatedAt: changedAt });
    });
  }

  return {
    /** The oldest candidates first, each with the developer event it was made from (all read in one query). */
    async list(orgId: string, environment: TEnvironment | null, limit = 100): Promise<TCandidate[]> {
      const memories = await store.memories.listByState(orgId, environment, "candidate", limit);
      const eventIds = [...new Set(memories.flatMap((memory) => (memory.eventId ? [memory.eventId] : [])))];
      const events = new Map((await store.events.findMany(eventIds)).map((event) => [event.id, event]));
      return memories.map((memory) => {
        const event = memory.eventId ? events.get(memory.eventId) : undefined;
        return {
          ...memoryView(memory),
          event: event
            ? { id: event.id, type: event.type, text: event.text, source: event.source, subject: event.subject, receivedAt: event.receivedAt.toISOString() }
            : null,
        };
      });
    },
    promote: (memoryId: string, input: ReviewInput) => review(memoryId, "promoted", input),
    reject: (memoryId: string, input: ReviewInput) => review(memoryId, "rejected", input),
  };
}

export type CandidateService = ReturnType<typeof candidateService>;
