/**
 * Near-duplicate detection over sets of terms. Similarity is Jaccard's (shared terms over all terms).
 * Comparing every pair grows with the square of the collection, so candidates are found with MinHash
 * signatures split into bands (locality-sensitive hashing): two sets land in the same bucket of a band
 * with a probability that rises steeply with their similarity. Every candidate is checked exactly.
 */
import { BOOKKEEPING_UNITS, type Pace, TERMS_PER_UNIT } from "./pacing";

/**
 * A memory's analysed terms as their distinct 32-bit hashes, ascending. Numbering terms in a vocabulary of the
 * scope instead held a map of every distinct term: millions for a scope of long memories of distinct words, whose
 * growth (the map copied as it doubled) held the event loop for 115 ms at 880,000. Two distinct terms share a hash
 * with odds of one in four billion, which moves a similarity by a term at most.
 */
export type TermSet = Uint32Array;

/** MinHash values per signature: enough bands for any threshold the settings allow. */
const SIGNATURE_SIZE = 128;
/** The chance that a pair exactly at the threshold is never a candidate. */
const MISS_RATE = 0.001;
/** Buckets up to this size compare all their pairs. */
const MAX_BUCKET = 32;
/** In a larger bucket, each set is compared with this many neighbours in signature order. */
const NEIGHBOURS = 8;

/** MurmurHash3's finaliser: spreads every input bit over the 32-bit result. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units, mixed. */
function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix(h);
}

/** Fixed seeds, so a run over the same memories finds the same candidates. */
const SEEDS = Uint32Array.from({ length: SIGNATURE_SIZE }, (_, i) => mix(Math.imul(i + 1, 0x9e3779b9)));

/** The distinct terms of space-separated analysed text. */
export function termSet(searchText: string): TermSet {
  const hashes = new Set<number>();
  for (const term of searchText.split(" ")) if (term !== "") hashes.add(hashString(term));
  return Uint32Array.from(hashes).sort();
}

/** The set less the terms of `removed`. */
export function without(set: TermSet, removed: TermSet): TermSet {
  if (removed.length === 0) return set;
  const excluded = new Set(removed);
  return set.filter((term) => !excluded.has(term));
}

/**
 * The Jaccard similarity of `a` and `b` less the terms of `removed` (all ascending), as `jaccard(a, without(b,
 * removed))` but without building the difference: it runs for every pair the duplicates process compares.
 */
export function jaccardWithout(a: TermSet, b: TermSet, removed: TermSet): number {
  let shared = 0;
  let kept = 0;
  for (let i = 0, j = 0, r = 0; j < b.length; j++) {
    const term = b[j]!;
    while (r < removed.length && removed[r]! < term) r++;
    if (r < removed.length && removed[r] === term) continue;
    kept++;
    while (i < a.length && a[i]! < term) i++;
    if (i < a.length && a[i] === term) {
      shared++;
      i++;
    }
  }
  const all = a.length + kept - shared;
  return all === 0 ? 0 : shared / all;
}

/** Shared terms over all terms; two empty sets are not similar. */
export function jaccard(a: TermSet, b: TermSet): number {
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  const all = a.length + b.length - shared;
  return all === 0 ? 0 : shared / all;
}

export interface BandShape {
  bands: number;
  rows: number;
}

/** The chance that a pair of this similarity shares a bucket in at least one band. */
export function candidateProbability(similarity: number, { bands, rows }: BandShape): number {
  return 1 - (1 - similarity ** rows) ** bands;
}

/**
 * The most rows per band (fewest dissimilar candidates) with which a pair at the threshold is still a
 * candidate with probability 1 - MISS_RATE; more similar pairs are found even more surely.
 */
export function bandShape(threshold: number): BandShape {
  for (let rows = SIGNATURE_SIZE; rows > 1; rows--) {
    const shape = { bands: Math.floor(SIGNATURE_SIZE / rows), rows };
    if (candidateProbability(threshold, shape) >= 1 - MISS_RATE) return shape;
  }
  return { bands: SIGNATURE_SIZE, rows: 1 };
}

/** Disjoint sets with path halving and union by size. */
export class UnionFind {
  private readonly parent: Uint32Array;
  private readonly size: Uint32Array;

  constructor(count: number) {
    this.parent = new Uint32Array(count);
    for (let i = 0; i < count; i++) this.parent[i] = i;
    this.size = new Uint32Array(count).fill(1);
  }

  find(i: number): number {
    while (this.parent[i] !== i) {
      this.parent[i] = this.parent[this.parent[i]!]!;
      i = this.parent[i]!;
    }
    return i;
  }

  /** How many sets are joined with `i`, itself included. */
  sizeOf(i: number): number {
    return this.size[this.find(i)]!;
  }

  union(a: number, b: number): void {
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return;
    if (this.size[ra]! < this.size[rb]!) [ra, rb] = [rb, ra];
    this.parent[rb] = ra;
    this.size[ra]! += this.size[rb]!;
  }
}

export interface ClusterOptions {
  /** The least similarity at which two sets are joined. */
  threshold: number;
  /**
   * The similarity of two sets by index: their Jaccard similarity, or less when something else keeps them
   * apart (0 for different subjects, say). Candidates come from the sets' signatures.
   */
  similarity(a: number, b: number): number;
  /** The caller's count of work, paused on after about every batch of it, so that others can run. */
  pace: Pace;
}

/** Sets whose signatures share one block of memory: 1 MiB at the widest signature. */
const BLOCK_SETS = 2048;

/**
 * MinHash signatures, `width` values per set, in blocks of BLOCK_SETS sets made as signing reaches them: one array
 * for a scope of 94,000 sets (48 MB) held the event loop for 190 ms while its pages were first written.
 */
class Signatures {
  private readonly blocks: Uint32Array[] = [];
  constructor(readonly width: number) {}

  /** The block holding set `i`, made on first use with every value at the maximum (as an empty set keeps it). */
  blockOf(i: number): Uint32Array {
    const index = Math.floor(i / BLOCK_SETS);
    for (let next = this.blocks.length; next <= index; next++) this.blocks.push(new Uint32Array(BLOCK_SETS * this.width).fill(0xffffffff));
    return this.blocks[index]!;
  }

  /** Where set `i`'s values start in its block. */
  offsetOf(i: number): number {
    return (i % BLOCK_SETS) * this.width;
  }

  value(i: number, k: number): number {
    return this.blocks[Math.floor(i / BLOCK_SETS)]![this.offsetOf(i) + k]!;
  }
}

async function signaturesOf(sets: readonly TermSet[], width: number, pace: Pace): Promise<Signatures> {
  const signatures = new Signatures(width);
  for (let i = 0; i < sets.length; i++) {
    const block = signatures.blockOf(i);
    const offset = signatures.offsetOf(i);
    for (const term of sets[i]!) {
      for (let k = 0; k < width; k++) {
        const value = mix(term ^ SEEDS[k]!);
        if (value < block[offset + k]!) block[offset + k] = value;
      }
    }
    if (pace.due(Math.max(1, sets[i]!.length / TERMS_PER_UNIT))) await pace.pause();
  }
  return signatures;
}

/**
 * Groups of sets joined by pairs whose similarity reaches the threshold (transitively: a group may hold
 * two sets that are not similar to each other, through a third). Groups of two or more, as indexes into
 * `sets` in ascending order. Empty sets are never joined.
 */
export async function similarGroups(sets: readonly TermSet[], options: ClusterOptions): Promise<number[][]> {
  const { threshold, similarity, pace } = options;
  const { due, pause } = pace;
  const shape = bandShape(threshold);
  const width = shape.bands * shape.rows;
  const present: number[] = [];
  for (let i = 0; i < sets.length; i++) {
    if (sets[i]!.length > 0) present.push(i);
    // Little per set, but over a whole scope it adds up.
    if (due(BOOKKEEPING_UNITS)) await pause();
  }
  const signatures = await signaturesOf(sets, width, pace);

  const groups = new UnionFind(sets.length);
  const check = (a: number, b: number) => {
    if (groups.find(a) !== groups.find(b) && similarity(a, b) >= threshold) groups.union(a, b);
  };

  for (let band = 0; band < shape.bands; band++) {
    const buckets = new Map<number, number[]>();
    for (const i of present) {
      let h = band;
      for (let r = 0; r < shape.rows; r++) h = Math.imul(h ^ signatures.value(i, band * shape.rows + r), 0x01000193);
      const key = mix(h);
      const bucket = buckets.get(key);
      if (bucket) bucket.push(i);
      else buckets.set(key, [i]);
      // Bucketing a set costs a small part of signing it.
      if (due(0.1)) await pause();
    }
    for (const bucket of buckets.values()) {
      if (bucket.length < 2) continue;
      if (bucket.length <= MAX_BUCKET) {
        for (let x = 1; x < bucket.length; x++) for (let y = 0; y < x; y++) check(bucket[x]!, bucket[y]!);
        if (due((bucket.length * (bucket.length - 1)) / 2 / MAX_BUCKET)) await pause();
        continue;
      }
      // A crowded bucket (many sets alike, but maybe not alike enough): sorted by the rest of their
      // signatures, similar sets sit close together, so each is compared with its next neighbours only
      // and the work stays linear.
      const start = ((band + 1) * shape.rows) % width;
      bucket.sort((a, b) => {
        for (let k = 0; k < width; k++) {
          const p = (start + k) % width;
          const d = signatures.value(a, p) - signatures.value(b, p);
          if (d !== 0) return d;
        }
        return a - b;
      });
      for (let x = 0; x < bucket.length; x++) {
        for (let y = x + 1; y <= x + NEIGHBOURS && y < bucket.length; y++) check(bucket[x]!, bucket[y]!);
        if (due()) await pause();
      }
    }
  }

  const byRoot = new Map<number, number[]>();
  for (const i of present) {
    if (due(BOOKKEEPING_UNITS)) await pause();
    // Most sets join no group: only those that did are gathered, each group of two or more.
    const root = groups.find(i);
    if (groups.sizeOf(root) < 2) continue;
    const group = byRoot.get(root);
    if (group) group.push(i);
    else byRoot.set(root, [i]);
  }
  return [...byRoot.values()];
}
