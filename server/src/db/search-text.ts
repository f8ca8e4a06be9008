import { analyzeText } from "@engram/retrieval";

/** Bump when the analyser changes: rows written by an older one are re-analysed when the store opens. */
export const SEARCH_VERSION = 1;

/**
 * The haystack lexical candidate search looks in: the analysed terms of subject and text, separated and
 * surrounded by spaces so a term matches only whole (`LIKE '% term %'`).
 */
export function searchTextOf(memory: { subject: string | null; text: string }): string {
  return ` ${analyzeText(`${memory.subject ?? ""} ${memory.text}`).join(" ")} `;
}

/** The pattern a term must match in searchText. */
export function searchPattern(term: string): string {
  return ` ${term} `;
}
