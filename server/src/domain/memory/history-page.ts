import { decodeCursor, encodeCursor, pageOf } from "../kernel/page-cursor";
import type { MemoryRepository } from "./ports";
import type { StoredHistoryEntry } from "./records";

/** Which page: after the entry `historyCursor` names (from the start without one), at most `historyLimit` entries. */
export interface HistoryPageQuery {
  historyCursor?: string;
  historyLimit: number;
}

/** A page of a memory's history as provenance answers it, and where the next page starts (null at the end). */
export interface HistoryPage {
  entries: StoredHistoryEntry[];
  nextCursor: string | null;
}

/**
 * One page of a memory's history, oldest first: a memory reinforced ten thousand times has as many entries, and
 * answering them all at once held the event loop for half a second.
 */
export async function historyPage(memories: Pick<MemoryRepository, "history">, memoryId: string, query: HistoryPageQuery): Promise<HistoryPage> {
  const after = decodeCursor(query.historyCursor, "historyCursor");
  const { items, nextCursor } = pageOf(await memories.history(memoryId, after, query.historyLimit + 1), query.historyLimit, encodeCursor);
  return { entries: items, nextCursor };
}
