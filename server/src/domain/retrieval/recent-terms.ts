import { LRUCache } from "lru-cache";
import { scopeKey } from "../kernel/scope-key";
import type { MemoryScope } from "../memory/ports";
import type { CandidateQuery, CollectionChange, CollectionScope, MemorySearch, RecentMemory, TimePosition } from "./ports";
import { newestFirst } from "./time-order";

/** How much is held, and how far behind a scope is caught up from its change log rather than read again. */
export interface HeldSizes {
  /** A scope's newest durable memories held: a newest-first lookup of common terms finds its matches among them. */
  perScope: number;
  /** Memories held across all scopes (about 1.6 kB each); the scopes searched least recently are dropped first. */
  total: number;
  /**
   * The most logged changes, and characters of their analysed text, applied to catch a scope up; further
   * behind (after a bulk import or a long idle spell), its newest memories are read again, costing about as much.
   */
  changes: number;
  changedText: number;
  /**
   * The most term tests one lookup makes in memory (about 10 ns each), whatever its terms: a query of hundreds
   * of words, rare among the newest memories, is handed to the database where the budget runs out.
   */
  termTests: number;
}
export const HELD_SIZES: HeldSizes = { perScope: 10_000, total: 50_000, changes: 2_048, changedText: 1024 * 1024, termTests: 200_000 };

/** A held memory: its place in time order, its agent, and the terms the backend counts, as a set. */
interface Held extends TimePosition {
  readonly agentSlug: string | null;
  readonly terms: ReadonlySet<string>;
}

const heldOf = ({ id, createdAt, agentSlug, terms }: RecentMemory): Held => ({ id, createdAt, agentSlug, terms: new Set(terms) });

function matches(terms: ReadonlySet<string>, query: CandidateQuery): boolean {
  return query.match === "any" ? query.terms.some((term) => terms.has(term)) : query.groups.every((group) => group.some((term) => terms.has(term)));
}

/** What the held memories answer of a newest-first lookup. */
export interface HeldMatches {
  /** The newest matches among the held memories, newest first, at most the lookup's limit. */
  ids: string[];
  /** Where the index must go on from for more (the last held memory tested), or null when nothing older can match. */
  olderThan: TimePosition | null;
}

/**
 * One scope's newest durable memories, exactly as of `version`: every durable memory of the scope from the
 * oldest held one on, or all of them when `complete`.
 */
class ScopeTerms {
  private readonly newestFirst: Held[];
  private readonly byId: Map<string, Held>;
  private complete: boolean;

  constructor(
    public version: bigint,
    memories: readonly RecentMemory[],
    private readonly sizes: Pick<HeldSizes, "perScope" | "termTests">,
  ) {
    this.complete = memories.length < sizes.perScope;
    this.newestFirst = memories.map(heldOf).sort(newestFirst);
    this.byId = new Map(this.newestFirst.map((held) => [held.id, held]));
  }

  get size(): number {
    return this.newestFirst.length;
  }

  /** Fewer than half the memories it was read with are left (memories left the scope): read it again. */
  get depleted(): boolean {
    return !this.complete && this.newestFirst.length < this.sizes.perScope / 2;
  }

  /**
   * One logged change. Applying a change sets its memory's presence, so a change already reflected (the
   * memories were read after the version they are held at) is applied again harmlessly.
   */
  apply(change: CollectionChange): void {
    this.remove(change.memoryId);
    if (change.delta < 0 || change.createdAt === null) return;
    const held = heldOf({ ...change, id: change.memoryId, createdAt: change.createdAt });
    const oldest = this.newestFirst.at(-1);
    // Older than the oldest held memory, it lies where the index searches anyway.
    if (!this.complete && oldest && newestFirst(held, oldest) > 0) return;
    let low = 0;
    let high = this.newestFirst.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (newestFirst(this.newestFirst[middle]!, held) < 0) low = middle + 1;
      else high = middle;
    }
    this.newestFirst.splice(low, 0, held);
    this.byId.set(held.id, held);
    if (this.newestFirst.length > this.sizes.perScope) {
      this.byId.delete(this.newestFirst.pop()!.id);
      this.complete = false;
    }
  }

  private remove(id: string): void {
    const held = this.byId.get(id);
    if (!held) return;
    this.byId.delete(id);
    this.newestFirst.splice(this.newestFirst.indexOf(held), 1);
  }

  /** The lookup's newest matches that `scope` sees among the held memories, within the budget of term tests. */
  newest(scope: MemoryScope, query: CandidateQuery): HeldMatches {
    const ids: string[] = [];
    const testsPerMemory = query.match === "any" ? query.terms.length : query.groups.reduce((sum, group) => sum + group.length, 0);
    const memories = Math.min(this.newestFirst.length, Math.max(1, Math.floor(this.sizes.termTests / Math.max(1, testsPerMemory))));
    for (let i = 0; i < memories; i++) {
      const held = this.newestFirst[i]!;
      if (scope.agentSlug !== null && held.agentSlug !== scope.agentSlug && held.agentSlug !== null) continue;
      if (!matches(held.terms, query)) continue;
      ids.push(held.id);
      if (ids.length >= query.limit) return { ids, olderThan: null };
    }
    // Everything newer than the last memory tested has been; the database goes on from there.
    const last = this.newestFirst[memories - 1];
    return { ids, olderThan: (this.complete && memories === this.newestFirst.length) || !last ? null : { createdAt: last.createdAt, id: last.id } };
  }
}

/** A scope's held memories, current as of the version asked for or later. */
export type RecentTerms = Pick<ScopeTerms, "newest">;

/**
 * Each scope's newest memories' terms, held in this process so that a newest-first lookup of common terms is
 * answered without walking the database's rows (docs/performance.md). Kept exact after every committed write
 * by any process: each use brings a scope up to the version its retrieval read, from the scope's change log.
 */
export function recentTermsCache(memories: Pick<MemorySearch, "newestDurable" | "collectionChanges">, sizes: HeldSizes = HELD_SIZES) {
  const scopes = new LRUCache<string, ScopeTerms>({ maxSize: sizes.total, sizeCalculation: (terms) => Math.max(1, terms.size) });
  // One catch-up per scope at a time: concurrent retrievals wait for it rather than read the same changes.
  const catchingUp = new Map<string, Promise<unknown>>();

  async function caughtUp(scope: CollectionScope, key: string, held: ScopeTerms | undefined, version: bigint): Promise<ScopeTerms> {
    if (held && !held.depleted) {
      const changes = await memories.collectionChanges(scope, { after: held.version, upTo: version, limit: sizes.changes, maxText: sizes.changedText });
      if (changes) {
        for (const change of changes) held.apply(change);
        held.version = version;
        scopes.set(key, held);
        return held;
      }
    }
    // Read after `version` was: the changes logged since then are applied again on the next catch-up.
    const fresh = new ScopeTerms(version, await memories.newestDurable(scope, sizes.perScope), sizes);
    scopes.set(key, fresh);
    return fresh;
  }

  return async function recentTerms(scope: CollectionScope, version: bigint): Promise<RecentTerms> {
    const key = scopeKey(scope);
    for (;;) {
      const held = scopes.get(key);
      if (held && held.version >= version && !held.depleted) return held;
      const pending = catchingUp.get(key);
      if (pending) {
        // Its failure is its caller's; this one tries again itself.
        await pending.catch(() => undefined);
        continue;
      }
      const work = caughtUp(scope, key, held, version).finally(() => catchingUp.delete(key));
      catchingUp.set(key, work);
      return work;
    }
  };
}
