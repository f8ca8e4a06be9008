/**
 * Base-level activation from ACT-R's declarative memory (Anderson & Lebiere 1998):
 *
 *     B = ln( Σ_j  t_j^(-d) )
 *
 * where t_j is the time since the j-th use of a memory and d the decay. Every encode and reinforce is a
 * use: frequent and recent use raise B, time lowers it as a power law. Memories keep their last
 * `RECENT_USES` use times exactly; older uses are folded in with Petrov's (2006) approximation, which
 * assumes they were spread evenly between the first use and the oldest kept one.
 *
 * B is turned into a recall probability with ACT-R's logistic: P = 1 / (1 + e^(-(B - τ)/s)).
 */

/** ACT-R's customary decay: activation halves its contribution as time grows fourfold. */
export const DECAY = 0.5;
/** Time is measured in days; a use counts as at least an hour old, so a fresh encode is not infinite. */
export const MIN_AGE_DAYS = 1 / 24;
/** Threshold τ and noise s: a memory used once a day ago sits at P = 0.5. */
export const THRESHOLD = 0;
export const NOISE = 1;
/** How many recent use times a memory keeps exactly. */
export const RECENT_USES = 10;

const DAY_MS = 86_400_000;

export interface UseHistory {
  /** Times of the most recent uses (at most RECENT_USES), any order. */
  recentUses: readonly Date[];
  /** All uses ever, including the recent ones. */
  totalUses: number;
  /** The first use (the encode). */
  firstUse: Date;
}

function ageInDays(then: Date, now: Date): number {
  return Math.max(MIN_AGE_DAYS, (now.getTime() - then.getTime()) / DAY_MS);
}

export function baseLevelActivation(history: UseHistory, now: Date): number {
  const recent = history.recentUses.map((use) => ageInDays(use, now));
  let sum = recent.reduce((total, age) => total + age ** -DECAY, 0);
  const older = history.totalUses - recent.length;
  if (older > 0 && recent.length > 0) {
    const oldestKept = Math.max(...recent);
    const first = Math.max(ageInDays(history.firstUse, now), oldestKept);
    if (first > oldestKept) {
      sum += (older * (first ** (1 - DECAY) - oldestKept ** (1 - DECAY))) / ((1 - DECAY) * (first - oldestKept));
    } else {
      sum += older * oldestKept ** -DECAY;
    }
  }
  return Math.log(sum);
}

export function recallProbability(activation: number): number {
  return 1 / (1 + Math.exp(-(activation - THRESHOLD) / NOISE));
}

/** Adds a use, keeping only the most recent RECENT_USES times. */
export function recordUse(recentUses: readonly Date[], at: Date): Date[] {
  return [...recentUses, at].sort((a, b) => a.getTime() - b.getTime()).slice(-RECENT_USES);
}
