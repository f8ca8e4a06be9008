import type { TMemory, TMemoryKind, TMemoryState, TProvenance, TRetrieveResponse } from "@engram/contract";
import { analyzeText, assembleContext, queryTerms, rankLexically, recordUse, scoreMemory } from "@engram/retrieval";
import { type Caller, memoryScopeFor, requireScope } from "./access";
import { collectionStatsCache } from "./collection-stats";
import { AppError } from "./errors";
import { BatchQueue } from "./batch-queue";
import { type IdempotentResult, requestHash } from "./idempotency";
import { type Decision, type KeyedSubmission, writeIdempotentBatch } from "./idempotent-batch";
import { newId } from "./ids";
import { memoryView, provenanceView } from "./memory-view";
import type { MemoryScope, PlannedMemory, Repositories, Store } from "./ports";
import type { HistoryAction, MemoryRecord } from "./records";

/** Full-text candidates considered per query; when more match, the backend's own rank picks them. */
const MAX_CANDIDATES = 100;
/**
 * How many index entries the candidate search may walk. Terms are added rarest first until their
 * postings exceed this, so a query mixing a rare identifier with very common words ("deploy", "api")
 * looks where the rare term is instead of ranking thousands of memories for the common ones; the
 * common words still count when the candidates are scored.
 */
const CANDIDATE_POSTINGS_BUDGET = 2000;

/** The query terms to search the index with: the rarest, within the postings budget, at least one. */
export function candidateTerms(terms: readonly string[], documentFrequency: ReadonlyMap<string, number>): string[] {
  const byRarity = [...terms].sort((a, b) => (documentFrequency.get(a) ?? 0) - (documentFrequency.get(b) ?? 0));
  const chosen: string[] = [];
  let postings = 0;
  for (const term of byRarity) {
    postings += documentFrequency.get(term) ?? 0;
    if (chosen.length > 0 && postings > CANDIDATE_POSTINGS_BUDGET) break;
    chosen.push(term);
  }
  return chosen;
}

export interface EncodeInput {
  text: string;
  subject?: string;
  memoryKind: TMemoryKind;
  confidence: number;
}

export interface RetrieveInput {
  query: string;
  limit: number;
  includeContext: boolean;
  contextMode: "full" | "compact";
}

export interface ControlInput {
  reason?: string;
  actor?: string;
}

/** What each control action requires of the memory's state, and where it leaves it. */
const transitions = {
  reinforced: { verb: "reinforce", from: null, to: null },
  suppressed: { verb: "suppress", from: ["durable"], to: "suppressed" },
  restored: { verb: "restore", from: ["suppressed"], to: "durable" },
} as const satisfies Record<string, { verb: string; from: readonly TMemoryState[] | null; to: TMemoryState | null }>;

export interface MemoryServiceOptions {
  /** The clock every write and every activation is measured against; replaced in evaluations. */
  now?: () => Date;
}

interface EncodeSubmission extends KeyedSubmission {
  agent: string | null;
  input: EncodeInput;
  at: Date;
}

/** A new memory's answer and rows: the memory, its first history entry, and its agent on first use. */
function decideEncode({ caller, agent, input, key, at }: EncodeSubmission): Decision<{ memory: TMemory }> {
  const actor = `token:${caller.tokenName}`;
  const memory: PlannedMemory = {
    id: newId("mem"),
    orgId: caller.orgId,
    environment: caller.environment,
    agentSlug: agent,
    text: input.text,
    subject: input.subject ?? null,
    memoryKind: input.memoryKind,
    confidence: input.confidence,
    state: caller.writeMode === "candidate" ? "candidate" : "durable",
    source: "api",
    sourceRequestId: caller.requestId,
    sourceTokenId: caller.tokenId,
    sourceActor: actor,
    idempotencyKey: key,
    eventId: null,
    createdAt: at,
  };
  const record: MemoryRecord = { ...memory, reinforcementCount: 0, lastReinforcedAt: null, recentUses: [at], updatedAt: at };
  return {
    status: 201,
    body: { memory: memoryView(record) },
    write(batch) {
      if (agent) batch.ensureAgents([{ orgId: caller.orgId, slug: agent }], at);
      batch.insertMemories(
        [memory],
        [{ memoryId: memory.id, action: "created", fromState: null, toState: memory.state, actor, tokenId: caller.tokenId, reason: null, requestId: caller.requestId, createdAt: at }],
      );
    },
  };
}

export function memoryService(store: Store, { now: clock = () => new Date() }: MemoryServiceOptions = {}) {
  const collectionStats = collectionStatsCache(store.memories);
  const encodeQueue = new BatchQueue<EncodeSubmission, IdempotentResult<{ memory: TMemory }>>((batch) =>
    writeIdempotentBatch(store, batch, { route: "memory.encode", decide: async (writers) => ({ decisions: writers.map(decideEncode) }) }),
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

  async function control(
    caller: Caller,
    agent: string | null,
    id: string,
    action: keyof typeof transitions,
    input: ControlInput,
  ): Promise<{ memory: TMemory }> {
    requireScope(caller, "memory:control");
    const scope = memoryScopeFor(caller, agent);
    return store.transaction(async (tx) => {
      const memory = await findOrThrow(tx, scope, id);
      const { verb, from, to } = transitions[action];
      if (from !== null && !(from as readonly TMemoryState[]).includes(memory.state)) {
        throw new AppError("invalid_state_transition", `Cannot ${verb} a ${memory.state} memory; it must be ${from.join(" or ")}.`);
      }
      const at = clock();
      const updated =
        to === null ? await tx.memories.recordReinforcement(id, at, recordUse(memory.recentUses, at)) : await tx.memories.setState(id, to, at);
      await recordAction(tx, caller, { memoryId: id, action, fromState: memory.state, toState: updated.state }, input, at);
      return { memory: memoryView(updated) };
    });
  }

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
      return encodeQueue.submit({ caller, agent, input, key: idempotencyKey ?? null, hash: requestHash({ agent, ...input }), at: clock() });
    },

    async retrieve(caller: Caller, agent: string | null, input: RetrieveInput): Promise<TRetrieveResponse> {
      requireScope(caller, "memory:read");
      const started = performance.now();
      const terms = queryTerms(input.query);
      const stats = await collectionStats(terms);
      const candidates = await store.memories.searchDurable(memoryScopeFor(caller, agent), candidateTerms(terms, stats.documentFrequency), MAX_CANDIDATES);
      const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]));
      const now = clock();
      const documents = candidates.map((c) => ({ id: c.id, terms: c.searchTerms, subjectTerms: c.subject ? analyzeText(c.subject) : [] }));
      const top = rankLexically(terms, documents, stats)
        .map((match) => {
          const candidate = byId.get(match.id)!;
          const { score } = scoreMemory(
            {
              relevance: match.score,
              confidence: candidate.confidence,
              recentUses: candidate.recentUses,
              totalUses: 1 + candidate.reinforcementCount,
              firstUse: candidate.createdAt,
            },
            now,
          );
          return { candidate, score };
        })
        // Equal scores: the newer memory first, then by id, so the order is the same on every backend.
        .sort((a, b) => b.score - a.score || b.candidate.createdAt.getTime() - a.candidate.createdAt.getTime() || (a.candidate.id < b.candidate.id ? -1 : 1))
        .slice(0, input.limit);
      const records = new Map((await store.memories.findManyByIds(top.map(({ candidate }) => candidate.id))).map((m) => [m.id, m]));
      const ranked = top.flatMap(({ candidate, score }) => {
        const memory = records.get(candidate.id);
        // A memory tombstoned between the two reads is simply left out.
        return memory && memory.state === "durable" ? [{ memory, score }] : [];
      });
      const memories = ranked.map(({ memory, score }) => ({ ...memoryView(memory), score: Number(score.toFixed(6)) }));
      if (!input.includeContext) return { memories };
      const assembled = assembleContext(
        ranked.map(({ memory }) => memory),
        { mode: input.contextMode, now },
      );
      return {
        memories,
        context: {
          systemBlock: assembled.systemBlock,
          mode: input.contextMode,
          stats: {
            candidates: candidates.length,
            returned: memories.length,
            merged: assembled.mergedIds.length,
            tokens: assembled.tokens,
            tookMs: Number((performance.now() - started).toFixed(2)),
          },
        },
      };
    },

    reinforce: (caller: Caller, agent: string | null, id: string, input: ControlInput) => control(caller, agent, id, "reinforced", input),
    suppress: (caller: Caller, agent: string | null, id: string, input: ControlInput) => control(caller, agent, id, "suppressed", input),
    restore: (caller: Caller, agent: string | null, id: string, input: ControlInput) => control(caller, agent, id, "restored", input),

    /** Tombstones a memory: kept for provenance and audit, gone from retrieval. Repeating it changes nothing. */
    async tombstone(caller: Caller, agent: string | null, id: string): Promise<{ memory: TMemory }> {
      requireScope(caller, "memory:delete");
      const scope = memoryScopeFor(caller, agent);
      return store.transaction(async (tx) => {
        const memory = await findOrThrow(tx, scope, id);
        if (memory.state === "tombstoned") return { memory: memoryView(memory) };
        const at = clock();
        const updated = await tx.memories.setState(id, "tombstoned", at);
        await recordAction(tx, caller, { memoryId: id, action: "tombstoned", fromState: memory.state, toState: "tombstoned" }, {}, at);
        return { memory: memoryView(updated) };
      });
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
