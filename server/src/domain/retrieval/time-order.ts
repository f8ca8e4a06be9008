import type { TimePosition } from "./ports";

/** Newest first, then by id descending: the order every newest-first lookup returns, on either backend. */
export const newestFirst = (a: TimePosition, b: TimePosition): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
