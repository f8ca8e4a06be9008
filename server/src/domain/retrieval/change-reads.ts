import { LRUCache } from "lru-cache";
import { scopeKey } from "../kernel/scope-key";
import type { ChangeRange, CollectionChange, MemorySearch } from "./ports";

type ReadChanges = MemorySearch["collectionChanges"];

/** A read of one scope's change log, kept while a later one may be answered from it. */
interface Read {
  range: ChangeRange;
  changes: Promise<CollectionChange[] | null>;
}

/** Analysed text kept in reads, at most: a read holds at most its range's `maxText`, counted whole when it starts. */
export const MAX_KEPT_TEXT = 16 * 1024 * 1024;

/** The analysed text of changes as the log's read measures it: their terms, each with its space. */
const textOf = (changes: readonly CollectionChange[]) => changes.reduce((sum, { terms }) => terms.reduce((size, term) => size + term.length + 1, sum), 0);

/**
 * The change log read once for all of a retrieval's catch-ups. After writes a retrieval brings up to the version
 * it read its query terms' counts, the held memories, then its feedback terms' counts, each from the log: the
 * first read spans what the others ask for (its range starts at the oldest count), so they are answered from it,
 * within their own bounds, instead of reading the same changes again (docs/performance.md).
 */
export function sharedChangeReads(read: ReadChanges): ReadChanges {
  const reads = new LRUCache<string, Read>({ maxSize: MAX_KEPT_TEXT, sizeCalculation: ({ range }) => Math.max(1, range.maxText) });

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
    const changes = read(scope, range);
    reads.set(key, { range, changes });
    return changes;
  };
}
