import { analyzeText } from "@engram/retrieval";

/** Bump when the analyser changes: rows written by an older one are re-analysed when the store opens. */
export const SEARCH_VERSION = 8;

/** What full-text search indexes: the analysed terms of subject and text, separated by single spaces. */
export function searchTextOf(memory: { subject: string | null; text: string }): string {
  return analyzeText(`${memory.subject ?? ""} ${memory.text}`).join(" ");
}
