import type { TMemory, TMemoryKind, TProvenance, TRetrieveResponse } from "@engram/contract";
import { type Caller, memoryScopeFor, requireScope } from "../access/caller";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import type { Retrieval, Retrieved, RetrieveInput } from "../retrieval/retrieval";
import type { EmbeddingWriter } from "../retrieval/semantic/embedding-writer";
import type { Store } from "../store";
import { BatchQueue, TEXT_WRITE_LIMITS } from "../writes/batch-queue";
import { type IdempotentResult, requestHash } from "../writes/idempotency";
import { type Decision, type KeyedSubmission, requestKeys, writeIdempotentBatch } from "../writes/idempotent-batch";
import { historyPage, type HistoryPageQuery } from "./history-page";
import { memoryView, provenanceView } from "./memory-view";
import { asWritten, newMemory } from "./new-memory";
import type { MemoryScope } from "./ports";
import { type ChangeAuthor, type MemoryLookup, memoryStateChanges } from "./state-changes";

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

export interface MemoryServiceOptions {
  /** The clock every write and every activation is measured against; replaced in evaluations. */
  clock: Clock;
  /** The retrieval engine, shared with the console's search so both rank alike. */
  retrieval: Retrieval;
  /** Embeds new durable memories after writing, when semantic retrieval is configured. */
  embeddings?: EmbeddingWriter | null;
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

export function memoryService(store: Store, { clock, retrieval, embeddings = null, onRetrieved }: MemoryServiceOptions) {
  const retrieveMemories = async (caller: Caller, agent: string | null, input: RetrieveInput) => {
    const answer = await retrieval(memoryScopeFor(caller, agent), input);
    onRetrieved?.({ orgId: caller.orgId, environment: caller.environment });
    return answer;
  };
  const encodeQueue = new BatchQueue<EncodeSubmission, IdempotentResult<{ memory: TMemory }>>(
    (batch) =>
      writeIdempotentBatch(store, batch, { ledger: requestKeys(store, "memory.encode"), clock, decide: async (writers) => ({ decisions: writers.map(decideEncode) }) }),
    TEXT_WRITE_LIMITS,
  );

  const changes = memoryStateChanges(store, clock);
  /** The memory when the caller's scope sees it. */
  const visibleTo = (scope: MemoryScope): MemoryLookup => (id) => store.memories.findVisible(scope, id);
  /** The history author of a token's request: the caller-given actor, else the token. */
  const authorOf = (caller: Caller, input: ControlInput): ChangeAuthor => ({
    actor: input.actor ?? `token:${caller.tokenName}`,
    tokenId: caller.tokenId,
    requestId: caller.requestId,
  });

  /**
   * The memory when the caller may change its state for everyone who sees it. A token limited to agents reads
   * the organization's shared memories inside their boundary, but hides, restores or tombstones only its
   * agents' own: a shared memory is every agent's.
   */
  const changeableBy = (caller: Caller, agent: string | null): MemoryLookup => async (id) => {
    const memory = await visibleTo(memoryScopeFor(caller, agent))(id);
    if (memory && memory.agentSlug === null && caller.allowedAgents !== null) {
      throw new AppError("agent_not_allowed", `This token is limited to agents (${caller.allowedAgents.join(", ")}); memory ${id} is the organization's, shared by every agent, and only a token for the whole organization may change its state.`, "id");
    }
    return memory;
  };

  const control = (action: "suppressed" | "restored") => (caller: Caller, agent: string | null, id: string, input: ControlInput) => {
    requireScope(caller, "memory:control");
    return changes.change(changeableBy(caller, agent), id, action, authorOf(caller, input), input.reason);
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
      if (embeddings && !result.replayed && memory.state === "durable") {
        embeddings.enqueue([{ memoryId: memory.id, orgId: caller.orgId, environment: caller.environment, agentSlug: agent, subject: memory.subject, text: memory.text, createdAt: new Date(memory.createdAt) }]);
      }
      return result;
    },

    async retrieve(caller: Caller, agent: string | null, input: RetrieveInput): Promise<TRetrieveResponse> {
      requireScope(caller, "memory:read");
      return (await retrieveMemories(caller, agent, input)).response;
    },

    /** Retrieval for memory-augmented inference: the gateway's scope (inference:chat) is enough. */
    async retrieveForInference(caller: Caller, agent: string | null, input: RetrieveInput): Promise<Retrieved> {
      requireScope(caller, "inference:chat");
      return retrieveMemories(caller, agent, input);
    },

    async reinforce(caller: Caller, agent: string | null, id: string, input: ControlInput): Promise<{ memory: TMemory }> {
      requireScope(caller, "memory:control");
      return changes.reinforce(visibleTo(memoryScopeFor(caller, agent)), id, authorOf(caller, input), input.reason);
    },
    suppress: control("suppressed"),
    restore: control("restored"),

    /** Tombstones a memory: kept for provenance and audit, gone from retrieval, final. Repeating it changes nothing. */
    async tombstone(caller: Caller, agent: string | null, id: string): Promise<{ memory: TMemory }> {
      requireScope(caller, "memory:delete");
      return changes.change(changeableBy(caller, agent), id, "tombstoned", authorOf(caller, {}));
    },

    /** The memory, its source and a page of its history. */
    async provenance(caller: Caller, agent: string | null, id: string, page: HistoryPageQuery): Promise<TProvenance> {
      requireScope(caller, "memory:control");
      const memory = await store.memories.findVisible(memoryScopeFor(caller, agent), id);
      if (!memory) throw new AppError("memory_not_found", `No memory ${id}.`, "id");
      const event = memory.eventId ? await store.events.find(memory.eventId) : null;
      return provenanceView(memory, await historyPage(store.memories, id, page), event);
    },
  };
}

export type MemoryService = ReturnType<typeof memoryService>;
export type { RetrieveInput } from "../retrieval/retrieval";
