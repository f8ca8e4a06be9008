import type { TRetrieveResponse } from "@engram/contract";
import { LRUCache } from "lru-cache";
import {
  analyzeQuery,
  analyzeText,
  assembleContext,
  conceptTerms,
  countTerms,
  feedbackSources,
  EXCHANGE_ANCHORS,
  EXCHANGE_WINDOW_MS,
  exchangeNeighbours,
  type LexicalMatch,
  NEIGHBOURS_PER_SIDE,
  rankLexically,
  reciprocalRankFusion,
  scoreMemory,
  type TermCounts,
  withExchangeContext,
  withFeedback,
} from "@engram/retrieval";
import { candidateLookup } from "./candidate-lookup";
import { sharedChangeReads } from "./change-reads";
import { candidatePlan, MAX_CANDIDATES } from "./candidate-plan";
import { type CollectionSnapshot, collectionStatsCache } from "./collection-stats";
import type { Clock } from "../kernel/clock";
import type { MemoryScope } from "../memory/ports";
import { memoryView } from "../memory/memory-view";
import type { Store } from "../store";
import type { CandidateQuery, SearchCandidate } from "./ports";
import type { SemanticSearch } from "./semantic/semantic-search";

export interface RetrieveInput {
  query: string;
  limit: number;
  includeContext: boolean;
  contextMode: "full" | "compact";
}

interface Ranked {
  candidate: SearchCandidate;
  score: number;
}

/** Relevance modulated by the memory's activation and confidence (see @engram/retrieval's scoring). */
function withActivation(candidate: SearchCandidate, relevance: number, now: Date): Ranked {
  const { score } = scoreMemory(
    { relevance, confidence: candidate.confidence, recentUses: candidate.recentUses, totalUses: 1 + candidate.reinforcementCount, firstUse: candidate.createdAt },
    now,
  );
  return { candidate, score };
}

// Equal scores: the newer memory first, then by id, so the order is the same on every backend.
const bestFirst = (a: Ranked, b: Ranked) =>
  b.score - a.score || b.candidate.createdAt.getTime() - a.candidate.createdAt.getTime() || (a.candidate.id < b.candidate.id ? -1 : 1);

/**
 * Retrieval: BM25 over full-text candidates, fused with semantic neighbours when an embeddings endpoint
 * is configured, each modulated by activation and confidence (see docs/retrieval.md).
 */
export function memoryRetrieval(store: Store, clock: Clock, semantic: SemanticSearch | null = null) {
  // The counts and the held memories catch up from one read of the change log.
  const search = { ...store.memories, collectionChanges: sharedChangeReads(store.memories.collectionChanges) };
  const collectionStats = collectionStatsCache(search);
  const candidates = candidateLookup(search);
  // Subjects repeat across memories (service names, people, teams): analyse each once.
  const subjectTerms = new LRUCache<string, TermCounts>({ max: 10_000 });
  const noTerms = countTerms([]);
  const termsOfSubject = (subject: string | null) => {
    if (!subject) return noTerms;
    let terms = subjectTerms.get(subject);
    if (!terms) subjectTerms.set(subject, (terms = countTerms(analyzeText(subject))));
    return terms;
  };

  /** Full-text candidates for the given lookups, added to `found` until it holds MAX_CANDIDATES. */
  async function addCandidates(scope: MemoryScope, collection: CollectionSnapshot, lookups: readonly CandidateQuery[], found: Map<string, SearchCandidate>): Promise<void> {
    // Later lookups only widen the net: once one fills it, the memories holding more terms are in.
    for (const lookup of lookups) {
      if (found.size >= MAX_CANDIDATES) break;
      for (const candidate of await candidates.matching(scope, collection.state.version, lookup)) found.set(candidate.id, candidate);
    }
  }

  /**
   * BM25 over the query's words and their synonyms, re-ranked by pseudo-relevance feedback, each memory's
   * relevance modulated by its activation and confidence.
   */
  async function lexicalRanking(scope: MemoryScope, collection: CollectionSnapshot, query: string, now: Date) {
    const concepts = analyzeQuery(query);
    const expanded = conceptTerms(concepts, { synonyms: true });
    const stats = await collection.statsFor(expanded);
    const byId = new Map<string, SearchCandidate>();
    await addCandidates(scope, collection, candidatePlan(concepts, stats.documentFrequency), byId);
    // Newest first, as ties are broken below: equal matches then give feedback the same sources on every backend.
    const documents = [...byId.values()]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((c) => ({ id: c.id, terms: c.searchTerms, subjectTerms: termsOfSubject(c.subject) }));
    const queryMatches = rankLexically(concepts, documents, stats);
    const sourceTerms = feedbackSources(queryMatches, documents).flatMap((source) => [...source.terms.counts.keys()]);
    const matches = await withNeighbours(scope, collection, withFeedback(expanded, queryMatches, documents, await collection.statsFor(sourceTerms)), byId);
    return { byId, ranking: matches.map((match) => withActivation(byId.get(match.id)!, match.score, now)).sort(bestFirst) };
  }

  /**
   * The matches with relevance lent to the memories written around the most relevant ones (one exchange;
   * see @engram/retrieval's exchange). Neighbours that matched nothing are added to `byId`.
   */
  async function withNeighbours(scope: MemoryScope, collection: CollectionSnapshot, matches: LexicalMatch[], byId: Map<string, SearchCandidate>): Promise<LexicalMatch[]> {
    // Only an agent's memories form exchanges: the shared memory is written by many systems and imports at once.
    const anchors = matches
      .slice(0, EXCHANGE_ANCHORS)
      .map((match) => byId.get(match.id)!)
      .flatMap((candidate) => (candidate.agentSlug === null ? [] : [{ ...candidate, agentSlug: candidate.agentSlug }]));
    if (anchors.length === 0) return matches;
    const found = await candidates.neighbours(scope, collection.state.version, anchors, { ms: EXCHANGE_WINDOW_MS, perSide: NEIGHBOURS_PER_SIDE });
    if (found.length === 0) return matches;
    const neighbours = anchors.flatMap((anchor) => exchangeNeighbours(anchor, found.filter((n) => n.anchorId === anchor.id).map((n) => n.candidate)));
    for (const { candidate } of found) if (!byId.has(candidate.id)) byId.set(candidate.id, candidate);
    return withExchangeContext(matches, neighbours);
  }

  /** The semantic neighbours that are durable and in scope, ranked; those found lexically are reused. */
  async function semanticRanking(scope: MemoryScope, collection: CollectionSnapshot, query: string, lexical: ReadonlyMap<string, SearchCandidate>, now: Date): Promise<Ranked[]> {
    const hits = await semantic!(scope, query, MAX_CANDIDATES, collection.state.vectorsVersion);
    const unread = hits.map((hit) => hit.memoryId).filter((id) => !lexical.has(id));
    const read = new Map((await store.memories.durableCandidates(scope, unread)).map((candidate) => [candidate.id, candidate]));
    return hits
      .flatMap((hit) => {
        const candidate = lexical.get(hit.memoryId) ?? read.get(hit.memoryId);
        return candidate ? [withActivation(candidate, hit.similarity, now)] : [];
      })
      .sort(bestFirst);
  }

  return async function retrieve(scope: MemoryScope, input: RetrieveInput): Promise<Retrieved> {
    const started = performance.now();
    const now = clock();
    const collection = await collectionStats(scope);
    const { byId, ranking: lexical } = await lexicalRanking(scope, collection, input.query, now);

    let top: Ranked[] = lexical;
    let considered = byId.size;
    if (semantic) {
      const meaning = await semanticRanking(scope, collection, input.query, byId, now);
      const candidates = new Map([...lexical, ...meaning].map((ranked) => [ranked.candidate.id, ranked.candidate]));
      considered = byId.size + meaning.filter(({ candidate }) => !byId.has(candidate.id)).length;
      top = reciprocalRankFusion([lexical, meaning].map((ranking) => ranking.map(({ candidate }) => candidate.id))).map(({ id, score }) => ({
        candidate: candidates.get(id)!,
        score,
      }));
    }
    top = top.slice(0, input.limit);

    const records = new Map((await store.memories.findManyByIds(top.map(({ candidate }) => candidate.id))).map((m) => [m.id, m]));
    const ranked = top.flatMap(({ candidate, score }) => {
      const memory = records.get(candidate.id);
      // A memory tombstoned between the two reads is simply left out.
      return memory && memory.state === "durable" ? [{ memory, score, terms: candidate.searchTerms }] : [];
    });
    const memories = ranked.map(({ memory, score }) => ({ ...memoryView(memory), score: Number(score.toFixed(6)) }));
    const terms = new Map(ranked.map(({ memory, terms }) => [memory.id, terms]));
    if (!input.includeContext) return { response: { memories }, terms };
    const assembled = assembleContext(
      ranked.map(({ memory, terms }) => ({ ...memory, terms })),
      { mode: input.contextMode, now },
    );
    const response: TRetrieveResponse = {
      memories,
      context: {
        systemBlock: assembled.systemBlock,
        mode: input.contextMode,
        stats: {
          candidates: considered,
          returned: memories.length,
          merged: assembled.mergedIds.length,
          tokens: assembled.tokens,
          tookMs: Number((performance.now() - started).toFixed(2)),
        },
      },
    };
    return { response, terms };
  };
}

/** A retrieval's answer, and each returned memory's analysed terms for callers that assemble context themselves. */
export interface Retrieved {
  response: TRetrieveResponse;
  terms: ReadonlyMap<string, TermCounts>;
}

/** Ranks a scope's durable memories for a query. */
export type Retrieval = ReturnType<typeof memoryRetrieval>;
