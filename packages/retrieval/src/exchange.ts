import type { LexicalMatch } from "./lexical";

/**
 * One agent's memories written moments apart are usually one exchange: a conversation's turns, or the steps
 * of one task. A turn that answers "what happened to it?" names little of what it is about; the turns
 * around it do. So a memory found relevant lends part of its relevance to its neighbours in time, more to
 * those written after it (a reply follows what it answers) than to those before: the side's weight to the
 * nearest one, half as much to the next, a third to the one after. Weights, reach and anchors were chosen on
 * the tuning half of the conversation set (docs/retrieval.md).
 */
export const NEIGHBOUR_WEIGHTS = { after: 0.6, before: 0.3 } as const;
/** How many of the most relevant memories lend to their neighbours. */
export const EXCHANGE_ANCHORS = 10;
/** Neighbours read on each side of an anchor. */
export const NEIGHBOURS_PER_SIDE = 3;
/** How far apart in time two memories of one exchange may be written. */
export const EXCHANGE_WINDOW_MS = 30 * 60 * 1000;

/** A memory written near an anchor, on one side of it: `steps` 1 for the nearest there, 2 for the next, and so on. */
export interface ExchangeNeighbour {
  anchorId: string;
  id: string;
  side: keyof typeof NEIGHBOUR_WEIGHTS;
  steps: number;
}

/** A memory of an exchange: which one, and when it was written. */
interface Written {
  id: string;
  createdAt: Date;
}

/**
 * The memories read around an anchor as its neighbours, each side nearest first; one written at the anchor's
 * very instant is on neither side.
 */
export function exchangeNeighbours(anchor: Written, around: readonly Written[]): ExchangeNeighbour[] {
  const at = anchor.createdAt.getTime();
  const distance = (memory: Written) => Math.abs(memory.createdAt.getTime() - at);
  const side = (name: ExchangeNeighbour["side"], written: Written[]) =>
    written.sort((a, b) => distance(a) - distance(b)).map((memory, i) => ({ anchorId: anchor.id, id: memory.id, side: name, steps: i + 1 }));
  return [
    ...side("before", around.filter((memory) => memory.createdAt.getTime() < at)),
    ...side("after", around.filter((memory) => memory.createdAt.getTime() > at)),
  ];
}

/**
 * The matches with relevance lent by their neighbours: each memory keeps its own relevance and gains the
 * largest share any anchor lends it (shares do not add up, so a run of relevant turns does not outrank the
 * turns themselves). Neighbours that matched nothing join the ranking on what they were lent.
 */
export function withExchangeContext(matches: readonly LexicalMatch[], neighbours: readonly ExchangeNeighbour[], weights = NEIGHBOUR_WEIGHTS): LexicalMatch[] {
  const own = new Map(matches.map((match) => [match.id, match.score]));
  const lent = new Map<string, number>();
  for (const { anchorId, id, side, steps } of neighbours) {
    const anchor = own.get(anchorId);
    if (anchor === undefined) continue;
    const share = (weights[side] * anchor) / steps;
    if (share > (lent.get(id) ?? 0)) lent.set(id, share);
  }
  const scores = new Map(own);
  for (const [id, share] of lent) scores.set(id, (scores.get(id) ?? 0) + share);
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
