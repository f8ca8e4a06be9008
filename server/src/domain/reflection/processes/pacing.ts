/**
 * Work counted in units, so a process can let requests run after about a batch's worth: one unit is signing a
 * typical memory's terms. Pacing by memories alone let one batch of long memories hold the event loop for a
 * second; pacing by the work each step does keeps every turn about as short.
 */

/** The terms of a typical memory: signing them is one unit. */
export const TERMS_PER_UNIT = 64;
/** Analysed text runs about eight characters a term, the space included. */
const CHARS_PER_TERM = 8;
/** Comparing two typical memories' terms costs about this fraction of a unit's work. */
const COMPARISONS_PER_UNIT = 32;

/** Reading a memory's analysed text into terms. */
export const textUnits = (analysedText: string) => Math.max(1, analysedText.length / CHARS_PER_TERM / TERMS_PER_UNIT);

/** Comparing two sets of `a` and `b` terms. */
export const comparisonUnits = (a: number, b: number) => (a + b) / (2 * TERMS_PER_UNIT) / COMPARISONS_PER_UNIT;

/** Counts work and says when a batch's worth is done and a pause is due. */
export function pacer(batch: number): (units?: number) => boolean {
  let done = 0;
  return (units = 1) => {
    done += units;
    if (done < batch) return false;
    done = 0;
    return true;
  };
}
