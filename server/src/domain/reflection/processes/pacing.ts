/**
 * Work counted in units, so a process can let requests run after about a batch's worth: one unit is signing a
 * typical memory's terms. Pacing by memories alone let one batch of long memories hold the event loop for a
 * second; pacing by the work each step does keeps every turn about as short.
 */

/** The terms of a typical memory: signing them is one unit. */
export const TERMS_PER_UNIT = 64;
/** Analysed text runs about eight characters a term, the space included. */
const CHARS_PER_TERM = 8;
/** Comparisons of two typical memories' terms that cost as much as one unit. */
const COMPARISONS_PER_UNIT = 32;
/**
 * Terms a comparison counts at least: comparing sets of a few terms costs more in the calls around it than in
 * the walk, and counted by their terms alone, hundreds of thousands of them ran between pauses.
 */
const MIN_TERMS_COMPARED = 32;

/** Bookkeeping over one memory or set (listing, sorting, gathering): about a hundredth of signing its terms. */
export const BOOKKEEPING_UNITS = 0.01;

/** Reading a memory's analysed text into terms. */
export const textUnits = (analysedText: string) => Math.max(1, analysedText.length / CHARS_PER_TERM / TERMS_PER_UNIT);

/** Comparing sets of `terms` terms in all (the subjects' too, when one is left out of the other). */
export const comparisonUnits = (terms: number) => Math.max(terms, MIN_TERMS_COMPARED) / (2 * TERMS_PER_UNIT) / COMPARISONS_PER_UNIT;

/** Work counted against a batch, and the pause taken when a batch's worth is done. */
export interface Pace {
  /** Counts `units` of work done (one when not said); true when a pause is due. */
  due(units?: number): boolean;
  pause(): Promise<void>;
}

/** Counts work and says when a batch's worth is done and a pause is due. */
export function pacer(batch: number): Pace["due"] {
  let done = 0;
  return (units = 1) => {
    done += units;
    if (done < batch) return false;
    done = 0;
    return true;
  };
}
