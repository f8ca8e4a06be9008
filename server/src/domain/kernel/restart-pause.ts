/** The first pause before something that ended is started again. */
const FIRST_PAUSE_MS = 1_000;
/** The longest: something that keeps failing to start is tried again at least this often. */
const LONGEST_PAUSE_MS = 30_000;

/**
 * The pause before starting again something that ended (a worker process, a thread), after `failures` starts
 * that did not take: 1 s, doubling with each, at most 30 s; so what cannot start does not spin, and what can
 * (the database back) is running again soon.
 */
export const restartPause = (failures: number): number => Math.min(FIRST_PAUSE_MS * 2 ** failures, LONGEST_PAUSE_MS);
