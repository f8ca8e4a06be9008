import type { TermCounts } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import { scopeKey } from "../kernel/scope-key";
import type { ChangeRange, CollectionChange, MemorySearch } from "./ports";

type ReadChanges = MemorySearch["collectionChanges"];

/** A read of one scope's change log, kept while a later one may be answered from it. */
interface Read {
  range: ChangeRange;
  changes: Promise<CollectionChange[] | null>;
}

/**
 * Characters of terms kept across the kept reads, at most (their changes' terms and their candidates' terms, which
 * are most of what a change holds, whatever its text in the log: a reinforcement logs none but carries its memory).
 */
export const MAX_KEPT_CHARACTERS = 8 * 1024 * 1024;
/** What a change holds besides its terms' characters (its objects, dates and subject), counted as characters. */
const CHANGE_OVERHEAD = 256;

const charactersOf = (terms: Iterable<string>) => {
  let characters = 0;
  for (const term of terms) characters += term.length;
  return characters;
};
/** A candidate holds each of its terms once (see SearchCandidate). */
const heldByCandidate = (terms: TermCounts) => charactersOf(terms.counts.keys());

/** How much a read's changes hold, in characters (see MAX_KEPT_CHARACTERS). */
const heldBy = (changes: readonly CollectionChange[] | null) =>
  (changes ?? []).reduce((sum, change) => sum + CHANGE_OVERHEAD + charactersOf(change.terms) + (change.candidate ? heldByCandidate(change.candidate.searchTerms) : 0), 1);

/**
 * The analysed text of changes as the log's read measures it, its terms with a space between: in UTF-16 units,
 * so text outside the Basic Multilingual Plane counts double here, and such a range may be refused here that the
 * database would read (the reader then counts or reads afresh, as past any bound).
 */
const textOf = (changes: readonly CollectionChange[]) => changes.reduce((sum, { terms }) => sum + charactersOf(terms) + Math.max(0, terms.length - 1), 0);

/**
 * The change log read once for all of a retrieval's catch-ups. After writes a retrieval brings up to the version
 * it read its query terms' counts, the held memories, then its feedback terms' counts, each from the log: the
 * first read spans what the others ask for (its range starts at the oldest count), so they are answered from it,
 * within their own bounds, instead of reading the same changes again (docs/performance.md).
 */
export function sharedChangeReads(read: ReadChanges, maxCharacters = MAX_KEPT_CHARACTERS): ReadChanges {
  const reads = new LRUCache<string, Read>({ maxSize: maxCharacters });

  return async (scope, range) => {
    const key = scopeKey(scope);
    const kept = reads.get(key);
    if (kept && kept.range.upTo === range.upTo && kept.range.after <= range.after) {
      // A read that failed, or refused its range, answers nothing here: this range is read on its own.
      const changes = await kept.changes.catch(() => null);
      if (changes) {
        const asked = changes.filter(({ version }) => version > range.after);
        return asked.length > range.limit || textOf(asked) > range.maxText ? null : asked;
      }
    }
    const pending: Read = { range, changes: read(scope, range) };
    reads.set(key, pending, { size: 1 });
    // Once read, it is kept at its size (a new entry: the cache sizes an entry when it is set), unless a later
    // read replaced it meanwhile; one larger than the whole budget is not kept.
    pending.changes.then(
      (changes) => reads.peek(key) === pending && reads.set(key, { ...pending }, { size: heldBy(changes) }),
      () => reads.peek(key) === pending && reads.delete(key),
    );
    return pending.changes;
  };
}
