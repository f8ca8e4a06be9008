import type { CollectionStats } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import { nextTurn } from "../kernel/in-turns";
import { scopeKey } from "../kernel/scope-key";
import type { CollectionChange, CollectionScope, CollectionState, MemorySearch } from "./ports";

/** A term's document frequency as of one version of its scope. */
interface CountedTerm {
  readonly documents: number;
  readonly version: bigint;
}

/** Terms remembered per scope: a query's terms repeat, and a bound keeps a stream of novel words from growing it. */
export const MAX_TERMS_PER_SCOPE = 20_000;
/**
 * The most logged changes, and characters of their analysed text, read to bring counts up to date. Checking
 * terms costs about 30 µs per kilobyte of text in this process; further behind (after a bulk import, a long idle
 * spell or a run of very long memories), the stale terms are counted again by the index instead.
 */
export const MAX_CHANGES_APPLIED = 512;
/**
 * Terms counted in one statement. A statement counts each term in a column of its own, and databases bound
 * the columns of a result (SQLite 2,000, Postgres 1,664), which the terms of feedback's best matches (up to 4,096
 * a memory) can pass; each statement is its own snapshot, its version kept with its counts. SQLite counts in
 * this process, so the bound is also how long one statement holds the event loop: the feedback terms of long
 * best matches fill several statements rather than one long one.
 */
export const MAX_TERMS_PER_COUNT = 100;
export const MAX_CHANGED_TEXT = 64 * 1024;

/** The statistics of one retrieval: the scope's state as read once, and its terms' document frequencies. */
export interface CollectionSnapshot {
  state: CollectionState;
  /** BM25 statistics for these terms, exact as of this snapshot's version or a later one. */
  statsFor(terms: readonly string[]): Promise<CollectionStats>;
}

/** For each wanted term, the changes (version and ±1) of the memories holding it: one pass over the changes' terms. */
function deltasOf(changes: readonly CollectionChange[], wanted: ReadonlySet<string>): Map<string, Array<Pick<CollectionChange, "version" | "delta">>> {
  const deltas = new Map<string, Array<Pick<CollectionChange, "version" | "delta">>>();
  for (const change of changes) {
    // A memory holds a term once however often it says it: document frequency counts memories.
    const counted = new Set<string>();
    for (const term of change.terms) {
      if (!wanted.has(term) || counted.has(term)) continue;
      counted.add(term);
      let list = deltas.get(term);
      if (!list) deltas.set(term, (list = []));
      list.push(change);
    }
  }
  return deltas;
}

/** A counted term moved up to `version` by its logged changes after its own version. */
function caughtUp(entry: CountedTerm, deltas: ReadonlyArray<Pick<CollectionChange, "version" | "delta">> = [], version: bigint): CountedTerm {
  let documents = entry.documents;
  for (const change of deltas) if (change.version > entry.version && change.version <= version) documents += change.delta;
  return { documents, version };
}

/**
 * BM25 collection statistics per organization and environment (each vocabulary weighs its own words), exact
 * after every committed write by any process. The totals are read with every retrieval (one keyed row the
 * database keeps in every write). A term's document frequency is counted once, then kept current from the
 * scope's change log: the memories that entered or left since its version, whose terms are checked in
 * memory instead of counting a common term's thousands of rows again (see docs/retrieval.md).
 */
export function collectionStatsCache(memories: Pick<MemorySearch, "collectionState" | "documentFrequencies" | "collectionChanges">) {
  const scopes = new LRUCache<string, Map<string, CountedTerm>>({ max: 1_000 });

  return async function snapshot(scope: CollectionScope): Promise<CollectionSnapshot> {
    const state = await memories.collectionState(scope);
    const scopeId = scopeKey(scope);
    let terms = scopes.get(scopeId);
    if (!terms) scopes.set(scopeId, (terms = new Map()));
    const counted = terms;

    /** The stale terms' counts brought up to the snapshot's version from the log; those it cannot are left out. */
    async function caughtUpFromLog(stale: readonly string[]): Promise<Map<string, CountedTerm>> {
      const current = new Map<string, CountedTerm>();
      if (stale.length === 0) return current;
      const since = stale.reduce((oldest, term) => (counted.get(term)!.version < oldest ? counted.get(term)!.version : oldest), state.version);
      const changes = await memories.collectionChanges(scope, { after: since, upTo: state.version, limit: MAX_CHANGES_APPLIED, maxText: MAX_CHANGED_TEXT });
      if (changes === null) return current;
      const deltas = deltasOf(changes, new Set(stale));
      // Entries are read again after the await: a concurrent retrieval may have moved them on already, and a
      // change is applied to an entry only past its own version, so nothing is counted twice. One may also have
      // been replaced by an older count (after the scope's terms were dropped at their bound): the changes read
      // start after `since`, so they cannot bring it up to date, and it is counted again instead.
      for (const term of stale) {
        const entry = counted.get(term);
        if (!entry || entry.version < since) continue;
        const moved = entry.version < state.version ? caughtUp(entry, deltas.get(term), state.version) : entry;
        counted.set(term, moved);
        current.set(term, moved);
      }
      return current;
    }

    return {
      state,
      async statsFor(wanted) {
        const unique = [...new Set(wanted)];
        const known = new Map<string, CountedTerm>();
        const stale: string[] = [];
        for (const term of unique) {
          const entry = counted.get(term);
          if (entry && entry.version >= state.version) known.set(term, entry);
          else if (entry) stale.push(term);
        }
        for (const [term, entry] of await caughtUpFromLog(stale)) known.set(term, entry);
        const uncounted = unique.filter((term) => !known.has(term));
        if (uncounted.length > 0 && counted.size + uncounted.length > MAX_TERMS_PER_SCOPE) counted.clear();
        for (let start = 0; start < uncounted.length; start += MAX_TERMS_PER_COUNT) {
          const batch = uncounted.slice(start, start + MAX_TERMS_PER_COUNT);
          // SQLite counts in this process: other requests get a turn between statements.
          if (start > 0) await nextTurn();
          const fresh = await memories.documentFrequencies(scope, batch);
          batch.forEach((term, i) => {
            const entry: CountedTerm = { documents: fresh.documents[i]!, version: fresh.version };
            known.set(term, entry);
            const existing = counted.get(term);
            if (!existing || existing.version <= fresh.version) counted.set(term, entry);
          });
        }
        const documentFrequency = new Map(unique.map((term) => [term, known.get(term)!.documents]));
        return { documents: state.documents, averageLength: state.averageLength, documentFrequency };
      },
    };
  };
}
