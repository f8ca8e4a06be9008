/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranked list gives an item
 * 1 / (k + rank), and an item's fused score is the sum over the lists it appears in. It needs no
 * calibration between the lists' own scores (BM25 and cosine similarity are not comparable), and k = 60,
 * the paper's constant, keeps one list's top item from drowning the other's.
 */
export const RRF_K = 60;

export interface Fused {
  id: string;
  score: number;
}

/** Fuses ranked id lists (best first) into one, best first; ties keep the earlier list's order. */
export function reciprocalRankFusion(lists: ReadonlyArray<readonly string[]>, k = RRF_K): Fused[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
