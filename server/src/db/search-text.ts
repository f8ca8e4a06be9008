import { foldText } from "@engram/retrieval";

/** The haystack lexical candidate search looks in: subject and text, folded. */
export function searchTextOf(memory: { subject: string | null; text: string }): string {
  return foldText(`${memory.subject ?? ""} ${memory.text}`);
}
