import type { TEnvironment, TMemoryState } from "@engram/contract";
import { nextTurn } from "../kernel/in-turns";
import type { PagePosition } from "../kernel/page-cursor";
import type { MemoryRepository } from "./ports";
import type { MemoryRecord } from "./records";

export interface WalkLimits {
  /**
   * Rows read per step of a filtered walk: each read is small, and the event loop gets a turn between reads (SQLite's
   * driver answers at once, so awaiting a read alone lets nothing else run), so no request holds it for long.
   */
  step: number;
  /** Rows a filtered walk may read per state and request; past it the page ends early with a cursor to go on from. */
  budget: number;
}

export const defaultWalkLimits: WalkLimits = { step: 500, budget: 5_000 };

const positionOf = (memory: MemoryRecord): PagePosition => ({ createdAt: memory.createdAt, id: memory.id });
const newestFirst = (a: PagePosition, b: PagePosition) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
/** At `until` or newer: the row a walk stopped on was read, so it belongs to this page. */
const notOlder = (a: PagePosition, until: PagePosition) => newestFirst(a, until) <= 0;

interface StateWalk {
  matches: MemoryRecord[];
  /** Where the walk stopped for its budget; null when it found enough or reached the state's oldest memory. */
  stoppedAt: PagePosition | null;
}

/**
 * The newest memories of some states that pass `wanted`, a page at a time, with bounded work: each state is
 * walked newest first along the scope index in small reads, at most `budget` rows per request. A filter
 * that rarely matches therefore answers a short (even empty) page with a cursor, rather than reading the
 * whole environment in one request; the next page goes on from there.
 */
export async function newestMatching(
  memories: Pick<MemoryRepository, "listNewest">,
  scope: { orgId: string; environment: TEnvironment; states: readonly TMemoryState[] },
  wanted: ((memory: MemoryRecord) => boolean) | null,
  before: PagePosition | null,
  limit: number,
  { step, budget }: WalkLimits = defaultWalkLimits,
): Promise<{ items: MemoryRecord[]; next: PagePosition | null }> {
  async function walk(state: TMemoryState): Promise<StateWalk> {
    // Without a filter every row matches: one read of just enough rows.
    if (!wanted) return { matches: await memories.listNewest({ orgId: scope.orgId, environment: scope.environment, state }, before, limit + 1), stoppedAt: null };
    const matches: MemoryRecord[] = [];
    let position = before;
    for (let read = 0; read < budget; read += step) {
      const rows = await memories.listNewest({ orgId: scope.orgId, environment: scope.environment, state }, position, step);
      for (const row of rows) {
        if (!wanted(row)) continue;
        matches.push(row);
        if (matches.length > limit) return { matches, stoppedAt: null };
      }
      if (rows.length < step) return { matches, stoppedAt: null };
      position = positionOf(rows.at(-1)!);
      await nextTurn();
    }
    return { matches, stoppedAt: position };
  }

  const walks: StateWalk[] = [];
  for (const state of scope.states) walks.push(await walk(state));
  // Past the newest place a walk stopped, another state's matches are not all known yet: the page ends there.
  const horizon = walks.flatMap((w) => (w.stoppedAt ? [w.stoppedAt] : [])).sort(newestFirst)[0] ?? null;
  const known = walks
    .flatMap((w) => w.matches)
    .filter((memory) => !horizon || notOlder(positionOf(memory), horizon))
    .sort((a, b) => newestFirst(positionOf(a), positionOf(b)));
  if (known.length > limit) return { items: known.slice(0, limit), next: positionOf(known[limit - 1]!) };
  return { items: known, next: horizon };
}
