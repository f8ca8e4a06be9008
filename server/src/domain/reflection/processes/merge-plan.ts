import { foldText } from "@engram/retrieval";
import type { ReflectionMemory } from "../records";
import { jaccard, jaccardWithout, type TermSet, termSet, without } from "./near-duplicates";
import { comparisonUnits, type Pace } from "./pacing";

/** What the duplicates process keeps of a durable memory while it compares. */
export interface Entry {
  id: string;
  agentSlug: string | null;
  /** Folded, so subjects that differ only in case and spacing agree. */
  subject: string | null;
  /** The analysed terms of the subject. */
  subjectTerms: TermSet;
  /** The analysed terms of subject and text, less the subject's. */
  terms: TermSet;
  reinforcementCount: number;
  confidence: number;
  createdAt: Date;
}

/** Subjects are compared folded; a memory without one may duplicate one with any. */
const subjectKey = (subject: string | null) => (subject === null ? null : foldText(subject).replace(/\s+/g, " ").trim());

/** A memory as the process compares it; `termsOf` gives a subject's analysed terms (the caller keeps them once each). */
export function entryOf(memory: ReflectionMemory, termsOf: (subject: string) => TermSet): Entry {
  const subjectTerms = memory.subject === null ? new Uint32Array(0) : termsOf(memory.subject);
  return {
    id: memory.id,
    agentSlug: memory.agentSlug,
    subject: subjectKey(memory.subject),
    subjectTerms,
    terms: without(termSet(memory.searchText), subjectTerms),
    reinforcementCount: memory.reinforcementCount,
    confidence: memory.confidence,
    createdAt: memory.createdAt,
  };
}

export interface Merge {
  survivor: Entry;
  duplicates: Array<{ entry: Entry; similarity: number }>;
}

/**
 * Jaccard similarity of the terms, the subject's left out: the subjects are compared on their own, and
 * counted as terms they would make short memories about one subject look alike ("Deploys on Monday" and
 * "Deploys on Friday" about payments-api). 0 when the subjects differ.
 */
export function similarity(a: Entry, b: Entry): number {
  if (a.subject !== null && b.subject !== null) return a.subject === b.subject ? jaccard(a.terms, b.terms) : 0;
  if (a.subject !== null) return jaccardWithout(a.terms, b.terms, a.subjectTerms);
  if (b.subject !== null) return jaccardWithout(b.terms, a.terms, b.subjectTerms);
  return jaccard(a.terms, b.terms);
}

/** The terms `similarity` walks: a subject's are walked too when they are left out of the other memory's terms. */
const termsCompared = (a: Entry, b: Entry) => a.terms.length + b.terms.length + a.subjectTerms.length + b.subjectTerms.length;

/**
 * The best-supported memory first: most reinforcements, then highest confidence, then the oldest (it was
 * there first), then the smaller id so the choice never depends on read order.
 */
function bySupport(a: Entry, b: Entry): number {
  return (
    b.reinforcementCount - a.reinforcementCount ||
    b.confidence - a.confidence ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * A group joined through chains of similar pairs, as merges: the best-supported member survives and takes
 * only the members similar to it (A~B and B~C do not put C under A when A and C differ); the rest form
 * merges of their own the same way. Survivors left are pairwise dissimilar, so a second run finds nothing.
 * A chain of drift leaves most of the group for the next survivor, so the comparisons grow with the square of
 * the chain: they are paced like the rest of the process's work.
 */
export async function mergesOf(group: readonly Entry[], threshold: number, pace: Pace): Promise<Merge[]> {
  const merges: Merge[] = [];
  let remaining = [...group].sort(bySupport);
  while (remaining.length > 1) {
    const [survivor, ...rest] = remaining as [Entry, ...Entry[]];
    const duplicates: Merge["duplicates"] = [];
    const left: Entry[] = [];
    for (const entry of rest) {
      const score = similarity(survivor, entry);
      if (score >= threshold) duplicates.push({ entry, similarity: score });
      else left.push(entry);
      if (pace.due(comparisonUnits(termsCompared(survivor, entry)))) await pace.pause();
    }
    if (duplicates.length > 0) merges.push({ survivor, duplicates });
    remaining = left;
  }
  return merges;
}
