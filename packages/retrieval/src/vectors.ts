/** Vector arithmetic for semantic retrieval; vectors are stored and compared at unit length. */

export function unitVector(components: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(components);
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm === 0 || !Number.isFinite(norm)) throw new Error("cannot normalise a zero or non-finite vector");
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** Cosine similarity of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export interface Neighbour {
  index: number;
  similarity: number;
}

/**
 * The `k` rows most similar to `query` among `count` unit vectors laid end to end in `rows`, best first,
 * skipping rows that `include` rejects and those below `minSimilarity`. An exact scan: at the sizes one
 * organization's memory reaches, it is fast enough and never misses a neighbour.
 */
export function nearest(
  query: Float32Array,
  rows: Float32Array,
  count: number,
  k: number,
  { minSimilarity = -1, include = () => true }: { minSimilarity?: number; include?: (index: number) => boolean } = {},
): Neighbour[] {
  const dimensions = query.length;
  const best: Neighbour[] = [];
  for (let row = 0; row < count; row++) {
    if (!include(row)) continue;
    let similarity = 0;
    const offset = row * dimensions;
    for (let i = 0; i < dimensions; i++) similarity += query[i]! * rows[offset + i]!;
    if (similarity < minSimilarity || (best.length === k && similarity <= best[k - 1]!.similarity)) continue;
    // Insertion into a short sorted list: k is small, so this beats a heap.
    let at = best.length === k ? k - 1 : best.length;
    while (at > 0 && best[at - 1]!.similarity < similarity) {
      best[at] = best[at - 1]!;
      at--;
    }
    best[at] = { index: row, similarity };
    if (best.length > k) best.length = k;
  }
  return best;
}
