import type { TMemory, TMemoryKind, TMemoryState, TProvenance, TRetrieveResponse } from "@engram/contract";
import { recordUse } from "@engram/retrieval";
import { type Caller, memoryScopeFor, requireScope } from "../access/caller";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { memoryRetrieval, type RetrieveInput } from "../retrieval/retrieval";
import type { EmbeddingWriter } from "../retrieval/semantic/embedding-writer";
import type { SemanticSearch } from "../retrieval/semantic/semantic-search";
import type { Repositories, Store } from "../store";
import { BatchQueue } from "../writes/batch-queue";
import { type IdempotentResult, requestHash } from "../writes/idempotency";
import { type Decision, type KeyedSubmission, requestKeys, writeIdempotentBatch } from "../writes/idempotent-batch";
import { memoryView, provenanceView } from "./memory-view";
import { asWritten, newMemory } from "./new-memory";
import type { MemoryScope } from "./ports";
import type { HistoryAction, MemoryRecord } from "./records";

export interface EncodeInput {
  text: string;
  subject?: string;
  memoryKind: TMemoryKind;
  confidence: number;
}

export interface ControlInput {
  reason?: string;
  actor?: string;
}

/** The states each state change may start from, and where it leaves the memory. Reinforce works in any state. */
const stateChanges = {
  suppressed: { verb: "suppress", from: ["durable"], to: "suppressed" },
  restored: { verb: "restore", from: ["suppressed"], to: "durable" },
  tombstoned: { verb: "delete", from: ["candidate", "durable", "suppressed"], to: "tombstoned" },
} as const satisfies Record<string, { verb: string; from: readonly TMemoryState[]; to: TMemoryState }>;

export interface MemoryServiceOptions {
  /** The clock every write and every activation is measured against; replaced in evaluations. */
  clock: Clock;
  /** Semantic retrieval, when an embeddings endpoint is configured: new memories are embedded after writing. */
  semantic?: { search: SemanticSearch; writer: EmbeddingWriter } | null;
  /** Told after each successful retrieval, for the daily usage counts (must not wait on anything). */
  onRetrieved?: (scope: { orgId: string; environment: Caller["environment"] }) => void;
}

interface EncodeSubmission extends KeyedSubmission {
  agent: string | null;
  input: EncodeInput;
  at: Date;
}

/** A new memory's answer and rows: the memory, its first history entry, and its agent on first use. */
function decideEncode({ caller, agent, input, key, at }: EncodeSubmission): Decision<{ memory: TMemory }> {
  const { memory, history } = newMemory({
    caller,
    agentSlug: agent,
    text: input.text,
    subject: input.subject ?? null,
    memoryKind: input.memoryKind,
    confidence: input.confidence,
    state: caller.writeMode === "candidate" ? "candidate" : "durable",
    source: "api",
    actor: `token:${caller.tokenName}`,
    idempotencyKey: key,
    eventId: null,
    reason: null,
    at,
  });
  return {
    status: 201,
    body: { memory: memoryView(asWritten(memory)) },
    write(batch) {
      if (agent) batch.ensureAgents([{ orgId: caller.orgId, slug: agent }], at);
      batch.insertMemories([memory], [history]);
    },
  };
}

export function memoryService(store: Store, { clock, semantic = null, onRetrieved }: MemoryServiceOptions) {
  const retrieval = memoryRetrieval(store, clock, semantic?.search);
  const retrieveMemories = async (caller: Caller, agent: string | null, input: RetrieveInput) => {
    const answer = await retrieval(memoryScopeFor(caller, agent), input);
    onRetrieved?.({ orgId: caller.orgId, environment: caller.environment });
    return answer;
  };
  const encodeQueue = new BatchQueue<EncodeSubmission, IdempotentResult<{ memory: TMemory }>>((batch) =>
    writeIdempotentBatch(store, batch, { ledger: requestKeys(store, "memory.encode"), clock, decide: async (writers) => ({ decisions: writers.map(decideEncode) }) }),
  );

  async function findOrThrow(repos: Repositories, scope: MemoryScope, id: string): Promise<MemoryRecord> {
    const memory = await repos.memories.findVisible(scope, id);
    // Outside the caller's boundary looks the same as absent: existence is never revealed.
    if (!memory) throw new AppError("memory_not_found", `No memory ${id}.`, "id");
    return memory;
  }

  async function recordAction(
    tx: Repositories,
    caller: Caller,
    change: { memoryId: string; action: HistoryAction; fromState: TMemoryState | null; toState: TMemoryState },
    input: ControlInput,
    at: Date,
  ): Promise<void> {
    await tx.memories.appendHistory({
      ...change,
      actor: input.actor ?? `token:${caller.tokenName}`,
      tokenId: caller.tokenId,
      reason: input.reason ?? null,
      requestId: caller.requestId,
      createdAt: at,
    });
  }

  /**
   * Checks the state, then changes it with a compare-and-set that is its transaction's first statement: of
   * concurrent changes from one state exactly one wins and writes history, and the others decide again on
   * the state it left (a repeated delete answers the tombstone, anything else 409).
   */
  async function changeState(
    caller: Caller,
    scope: MemoryScope,
    id: string,
    action: keyof typeof stateChanges,
    input: ControlInput,
  ): Promise<{ memory: TMemory }> {
    const { verb, from, to } = stateChanges[action];
    for (;;) {
      const memory = await findOrThrow(store, scope, id);
      if (action === "tombstoned" && memory.state === "tombstoned") return { memory: memoryView(memory) };
      if (!(from as readonly TMemoryState[]).includes(memory.state)) {
        throw new AppError("invalid_state_transition", `Cannot ${verb} a ${memory.state} memory; it must be ${from.join(" or ")}.`);
      }
      const at = clock();
      const changed = await store.transaction(async (tx) => {
        const updated = await tx.memories.changeState(id, memory.state, to, at);
        if (!updated) return null;
        if (to === "tombstoned") await tx.embeddings.remove(id);
        await recordAction(tx, caller, { memoryId: id, action, fromState: memory.state, toState: to }, input, at);
        return updated;
      });
      if (changed) return { memory: memoryView(changed) };
      // Another request changed the memory after it was read: each pass means one did, so this ends.
    }
  }

  async function reinforce(caller: Caller, agent: string | null, id: string, input: ControlInput): Promise<{ memory: TMemory }> {
    requireScope(caller, "memory:control");
    await findOrThrow(store, memoryScopeFor(caller, agent), id);
    const at = clock();
    const memory = await store.transaction(async (tx) => {
      const counted = await tx.memories.recordReinforcement(id, at, (recentUses) => recordUse(recentUses, at));
      await recordAction(tx, caller, { memoryId: id, action: "reinforced", fromState: counted.state, toState: counted.state }, input, at);
      return counted;
    });
    return { memory: memoryView(memory) };
  }

  const control = (action: "suppressed" | "restored") => (caller: Caller, agent: string | null, id: string, input: ControlInput) => {
    requireScope(caller, "memory:control");
    return changeState(caller, memoryScopeFor(caller, agent), id, action, input);
  };

  return {
    /**
     * Encodes a memory: durable and retrievable at once in direct write mode, a candidate awaiting review
     * in candidate write mode. Concurrent encodes are written together (group commit), each exactly once
     * per Idempotency-Key.
     */
    async encode(
      caller: Caller,
      agent: string | null,
      input: EncodeInput,
      idempotencyKey: string | undefined,
    ): Promise<IdempotentResult<{ memory: TMemory }>> {
      requireScope(caller, "memory:write");
      const result = await encodeQueue.submit({ caller, agent, input, key: idempotencyKey ?? null, hash: requestHash({ agent, ...input }), at: clock() });
      const { memory } = result.body;
      if (semantic && !result.replayed && memory.state === "durable") {
        semantic.writer.enqueue([{ memoryId: memory.id, orgId: caller.orgId, environment: caller.environment, agentSlug: agent, subject: memory.subject, text: memory.text, createdAt: new Date(memory.createdAt) }]);
      }
      return result;
    },

    async retrieve(caller: Caller, agent: string | null, input: RetrieveInput): Promise<TRetrieveResponse> {
      requireScope(caller, "memory:read");
      return retrieveMemories(caller, agent, input);
    },

    /** Retrieval for memory-augmented inference: the gateway's scope (inference:chat) is enough. */
    async retrieveForInference(caller: Caller, agent: string | null, input: RetrieveInput): Promise<TRetrieveResponse> {
      requireScope(caller, "inference:chat");
      return retrieveMemories(caller, agent, input);
    },

    reinforce,
    suppress: control("suppressed"),
    restore: control("restored"),

    /** Tombstones a memory: kept for provenance and audit, gone from retrieval, final. Repeating it changes nothing. */
    async tombstone(caller: Caller, agent: string | null, id: string): Promise<{ memory: TMemory }> {
      requireScope(caller, "memory:delete");
      return changeState(caller, memoryScopeFor(caller, agent), id, "tombstoned", {});
    },

    async provenance(caller: Caller, agent: string | null, id: string): Promise<TProvenance> {
      requireScope(caller, "memory:control");
      const memory = await findOrThrow(store, memoryScopeFor(caller, agent), id);
      const event = memory.eventId ? await store.events.find(memory.eventId) : null;
      return provenanceView(memory, await store.memories.history(id), event);
    },
  };
}

export type MemoryService = ReturnType<typeof memoryService>;
export type { RetrieveInput } from "../retrieval/retrieval";
