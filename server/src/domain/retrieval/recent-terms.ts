import { LRUCache } from "lru-cache";
import { inTurns, nextTurn } from "../kernel/in-turns";
import { scopeKey } from "../kernel/scope-key";
import type { MemoryScope } from "../memory/ports";
import type { CandidateQuery, CollectionChange, CollectionScope, MemorySearch, NeighbourAnchor, NeighbourWindow, RecentMemory, SearchCandidate, TimePosition } from "./ports";
import { newestFirst } from "./time-order";

/** How much is held, and how far behind a scope is caught up from its change log rather than read again. */
export interface HeldSizes {
  /** A scope's newest durable memories held: a newest-first lookup of common terms finds its matches among them. */
  perScope: number;
  /**
   * A scope's held terms at most (each memory's distinct terms, summed): a scope of long memories holds fewer
   * of them, so that reading it again and the heap it takes stay bounded however long its memories are.
   */
  termsPerScope: number;
  /**
   * What is held across all scopes, by weight: a memory weighs its distinct terms and MEMORY_WEIGHT more for its
   * candidate, each unit 50-80 bytes of heap. The scopes searched least recently are dropped first.
   */
  total: number;
  /** Rows read in one statement when a scope's newest memories are read again; other requests get a turn between reads. */
  rowsPerRead: number;
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
export const HELD_SIZES: HeldSizes = {
  perScope: 10_000,
  termsPerScope: 500_000,
  total: 2_500_000,
  rowsPerRead: 100,
  changes: 2_048,
  changedText: 1024 * 1024,
  termTests: 200_000,
};

/** A held memory's candidate weighs about as much heap as this many of its terms. */
const MEMORY_WEIGHT = 32;

/** How long holding memories just read may keep the event loop before other requests get a turn. */
const HOLDING_SLICE_MS = 10;

/**
 * A held memory: the distinct terms the backend counts, and the candidate retrieval ranks (which also gives its
 * place in time order and its agent), replaced whenever the log says its ranking columns changed.
 */
interface Held {
  readonly terms: readonly string[];
  candidate: SearchCandidate;
  /** Its index in newest-first order, renumbered after changes before it is read. */
  rank: number;
}

const heldOf = ({ candidate, terms }: RecentMemory): Held => ({
  terms: [...new Set(terms)],
  candidate,
  rank: 0,
});

/** A lookup as the held memories holding each of its terms: a memory matches when it is in one set of every group. */
type HeldGroups = ReadonlyArray<ReadonlyArray<ReadonlySet<Held>>>;

/** Whether `held` is in one set of every group (but the group at `known`, whose sets it was found in). */
function matches(groups: HeldGroups, held: Held, known = -1): boolean {
  for (let g = 0; g < groups.length; g++) {
    if (g === known) continue;
    const group = groups[g]!;
    let found = false;
    for (const memories of group) if ((found = memories.has(held))) break;
    if (!found) return false;
  }
  return true;
}

/** What the held memories answer of a newest-first lookup. */
export interface HeldMatches {
  /** The newest matches among the held memories, newest first, at most the lookup's limit. */
  candidates: SearchCandidate[];
  /** Where the index must go on from for more (the last held memory tested), or null when nothing older can match. */
  olderThan: TimePosition | null;
}

/**
 * One scope's newest durable memories, exactly as of `version`: every durable memory of the scope from the
 * oldest held one on, or all of them when `complete`. Each term's memories are held as a set, so a lookup
 * either reads only the memories holding its rarest terms or tests the newest memories in turn, whichever
 * is expected to touch fewer (docs/performance.md).
 */
class ScopeTerms {
  private readonly newestFirst: Held[] = [];
  private readonly byId = new Map<string, Held>();
  /** Each term's memories: the memory itself when only one holds it, as most of a vocabulary's terms are (no set to keep). */
  private readonly postings = new Map<string, Held | Set<Held>>();
  private ranked = false;
  private complete = false;
  /** The held memories' distinct terms, summed. */
  private heldTerms = 0;

  private constructor(
    public version: bigint,
    private readonly sizes: Pick<HeldSizes, "perScope" | "termsPerScope" | "termTests">,
  ) {}

  /**
   * The scope as of `version`, holding the newest of `memories` within the bounds; `ranOut` says they are all
   * the scope has. Their terms are held in turns: a scope of long memories holds hundreds of thousands.
   */
  static async holding(version: bigint, memories: Held[], ranOut: boolean, sizes: ScopeTerms["sizes"]): Promise<ScopeTerms> {
    const scope = new ScopeTerms(version, sizes);
    await inTurns(scope.holdingInOrder(memories.sort((a, b) => newestFirst(a.candidate, b.candidate)), ranOut), HOLDING_SLICE_MS);
    return scope;
  }

  private *holdingInOrder(memories: readonly Held[], ranOut: boolean): Generator<void, void, void> {
    for (const held of memories) {
      this.newestFirst.push(held);
      this.add(held);
      if (this.overBounds()) {
        this.forget(this.newestFirst.pop()!);
        return;
      }
      yield;
    }
    this.complete = ranOut;
  }

  /** What it weighs in the cache of scopes. */
  get weight(): number {
    return Math.max(1, this.heldTerms + MEMORY_WEIGHT * this.newestFirst.length);
  }

  /** Fewer than half the memories and terms it may hold are left (memories left the scope): read it again. */
  get depleted(): boolean {
    return !this.complete && this.newestFirst.length < this.sizes.perScope / 2 && this.heldTerms < this.sizes.termsPerScope / 2;
  }

  /** More memories or terms held than the bounds allow; the newest memory is held whatever its size. */
  private overBounds(): boolean {
    return this.newestFirst.length > 1 && (this.newestFirst.length > this.sizes.perScope || this.heldTerms > this.sizes.termsPerScope);
  }

  /**
   * One logged change. Applying a change sets its memory's presence and candidate as they were read with it, so
   * a change already reflected (the memories were read after the version they are held at) is applied again
   * harmlessly.
   */
  apply(change: CollectionChange): void {
    if (change.delta === 0) {
      const held = this.byId.get(change.memoryId);
      if (held && change.candidate) held.candidate = change.candidate;
      return;
    }
    this.remove(change.memoryId);
    if (change.delta < 0 || change.candidate === null) return;
    const held = heldOf({ candidate: change.candidate, terms: change.terms });
    const oldest = this.newestFirst.at(-1);
    // Older than the oldest held memory, it lies where the index searches anyway.
    if (!this.complete && oldest && newestFirst(held.candidate, oldest.candidate) > 0) return;
    this.newestFirst.splice(this.position(held.candidate), 0, held);
    this.add(held);
    while (this.overBounds()) {
      this.forget(this.newestFirst.pop()!);
      this.complete = false;
    }
  }

  /** The index in newest-first order of the first held memory not newer than `memory`. */
  private position(memory: TimePosition): number {
    let low = 0;
    let high = this.newestFirst.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (newestFirst(this.newestFirst[middle]!.candidate, memory) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private add(held: Held): void {
    this.byId.set(held.candidate.id, held);
    this.heldTerms += held.terms.length;
    for (const term of held.terms) {
      const memories = this.postings.get(term);
      if (memories === undefined) this.postings.set(term, held);
      else if (memories instanceof Set) memories.add(held);
      else this.postings.set(term, new Set([memories, held]));
    }
    this.ranked = false;
  }

  private forget(held: Held): void {
    this.byId.delete(held.candidate.id);
    this.heldTerms -= held.terms.length;
    for (const term of held.terms) {
      const memories = this.postings.get(term)!;
      if (!(memories instanceof Set)) this.postings.delete(term);
      else if (memories.delete(held) && memories.size === 1) this.postings.set(term, memories.values().next().value!);
    }
    this.ranked = false;
  }

  private remove(id: string): void {
    const held = this.byId.get(id);
    if (!held) return;
    this.forget(held);
    this.newestFirst.splice(this.newestFirst.indexOf(held), 1);
  }

  /** The lookup's newest matches that `scope` sees among the held memories, within the budget of term tests. */
  newest(scope: MemoryScope, query: CandidateQuery): HeldMatches {
    const groups = (query.match === "any" ? [query.terms] : query.groups).map((group) => group.flatMap((term) => this.memoriesHolding(term)));
    const visible = ({ candidate }: Held) => scope.agentSlug === null || candidate.agentSlug === scope.agentSlug || candidate.agentSlug === null;
    const count = this.newestFirst.length;
    // No held memory holds a term of some group: none matches.
    if (groups.some((group) => group.length === 0)) return { candidates: [], olderThan: this.beyond(count) };

    const testsPerMemory = groups.reduce((sum, group) => sum + group.length, 0);
    const groupSizes = groups.map((group) => group.reduce((sum, memories) => sum + memories.size, 0));
    const rarest = groupSizes.indexOf(Math.min(...groupSizes));
    // Tested newest first, the matches turn up at their density (the groups taken as independent).
    const density = groupSizes.reduce((product, size) => product * Math.min(1, size / count), 1);
    const tested = Math.min(count, query.limit / density);
    if (groupSizes[rarest]! <= tested && groupSizes[rarest]! * testsPerMemory <= this.sizes.termTests) {
      return this.gathered(groups, rarest, visible, query.limit);
    }

    const candidates: SearchCandidate[] = [];
    const memories = Math.min(count, Math.max(1, Math.floor(this.sizes.termTests / testsPerMemory)));
    for (let i = 0; i < memories; i++) {
      const memory = this.newestFirst[i]!;
      if (!visible(memory) || !matches(groups, memory)) continue;
      candidates.push(memory.candidate);
      if (candidates.length >= query.limit) return { candidates, olderThan: null };
    }
    return { candidates, olderThan: this.beyond(memories) };
  }

  /** The held memories holding `term`, as the sets a lookup tests (a set made for a term only one holds). */
  private memoriesHolding(term: string): ReadonlyArray<ReadonlySet<Held>> {
    const memories = this.postings.get(term);
    return memories === undefined ? [] : [memories instanceof Set ? memories : new Set([memories])];
  }

  /**
   * The anchor's agent's memories written nearest after and before it within the window (as
   * MemorySearch.neighbours reads them), or null when some may lie beyond the held memories.
   */
  neighbours(anchor: NeighbourAnchor, { ms, perSide }: NeighbourWindow): SearchCandidate[] | null {
    const oldest = this.newestFirst.at(-1);
    if (!this.complete && (!oldest || newestFirst(anchor, oldest.candidate) > 0)) return null;
    const at = anchor.createdAt.getTime();
    // One written at the anchor's very instant is on neither side.
    const sameAgent = ({ candidate }: Held) => candidate.agentSlug === anchor.agentSlug && candidate.createdAt.getTime() !== at;
    /** Up to `perSide` of the side's memories, nearest first, and whether the held memories ran out before the side did. */
    const side = (from: number, step: 1 | -1, inWindow: (time: number) => boolean) => {
      const found: SearchCandidate[] = [];
      let i = from;
      for (; i >= 0 && i < this.newestFirst.length && found.length < perSide; i += step) {
        const held = this.newestFirst[i]!;
        if (!inWindow(held.candidate.createdAt.getTime())) return { found, ranOut: false };
        if (sameAgent(held)) found.push(held.candidate);
      }
      return { found, ranOut: found.length < perSide && i === this.newestFirst.length };
    };
    const start = this.position(anchor);
    // Every durable memory newer than the oldest held one is held; older ones may lie where the held ones end.
    const after = side(start - 1, -1, (time) => time <= at + ms);
    const before = side(start, 1, (time) => time >= at - ms);
    return before.ranOut && !this.complete ? null : [...after.found, ...before.found];
  }

  /**
   * Every match read from the memories holding the rarest group's terms, the newest `limit` kept: marked by their
   * place in time order, then taken newest first (a scan of one byte per held memory, not a sort of the matches).
   */
  private gathered(groups: HeldGroups, rarest: number, visible: (held: Held) => boolean, limit: number): HeldMatches {
    this.rank();
    const matched = new Uint8Array(this.newestFirst.length);
    for (const memories of groups[rarest]!) for (const held of memories) if (!matched[held.rank] && visible(held) && matches(groups, held, rarest)) matched[held.rank] = 1;
    const candidates: SearchCandidate[] = [];
    for (let rank = 0; rank < matched.length && candidates.length < limit; rank++) if (matched[rank]) candidates.push(this.newestFirst[rank]!.candidate);
    return { candidates, olderThan: candidates.length >= limit ? null : this.beyond(this.newestFirst.length) };
  }

  /** Where the index goes on from once the newest `tested` held memories have been: null when nothing is left. */
  private beyond(tested: number): TimePosition | null {
    // Everything newer than the last memory tested has been; the database goes on from there.
    const last = this.newestFirst[tested - 1]?.candidate;
    return (this.complete && tested === this.newestFirst.length) || !last ? null : { createdAt: last.createdAt, id: last.id };
  }

  private rank(): void {
    if (this.ranked) return;
    this.newestFirst.forEach((held, rank) => (held.rank = rank));
    this.ranked = true;
  }
}

/** A scope's held memories, current as of the version asked for or later. */
export type RecentTerms = Pick<ScopeTerms, "newest" | "neighbours">;

/**
 * Each scope's newest memories' terms and candidates, held in this process so that a newest-first lookup of
 * common terms is answered without walking the database's rows or reading its matches again
 * (docs/performance.md). Kept exact after every committed write by any process, reinforcement and changes of
 * confidence included: each use brings a scope up to the version its retrieval read, from the scope's change log.
 */
export function recentTermsCache(memories: Pick<MemorySearch, "newestDurable" | "collectionChanges">, sizes: HeldSizes = HELD_SIZES) {
  const scopes = new LRUCache<string, ScopeTerms>({ maxSize: sizes.total, sizeCalculation: (terms) => terms.weight });
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
    const fresh = await readAgain(scope, version);
    scopes.set(key, fresh);
    return fresh;
  }

  /**
   * The scope's newest memories read again, in reads of `rowsPerRead` with a turn between them, until the bounds
   * are passed or the scope runs out. The reads come after `version` was, and each sees the writes committed
   * before it: the changes logged since `version` are applied again on the next catch-up, which also places a
   * memory whose time was rewritten between two reads.
   */
  async function readAgain(scope: CollectionScope, version: bigint): Promise<ScopeTerms> {
    const read: Held[] = [];
    let terms = 0;
    for (let olderThan: TimePosition | null = null; ; await nextTurn()) {
      const rows = await memories.newestDurable(scope, sizes.rowsPerRead, olderThan);
      for (const memory of rows) {
        const held = heldOf(memory);
        read.push(held);
        terms += held.terms.length;
      }
      const ranOut = rows.length < sizes.rowsPerRead;
      if (ranOut || read.length > sizes.perScope || terms > sizes.termsPerScope) return ScopeTerms.holding(version, read, ranOut, sizes);
      olderThan = rows.at(-1)!.candidate;
    }
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
