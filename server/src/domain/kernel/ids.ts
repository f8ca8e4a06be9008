import { v7 as timeOrderedUuid } from "uuid";

/**
 * Identifiers are a type prefix and 32 hex digits, e.g. `mem_019ac3…`: a UUIDv7, whose leading 48 bits are
 * the time of creation and the rest random. Rows keyed by ids that grow with time are inserted at the end
 * of their key's B-tree instead of on a random page, so a commit writes a few pages per index rather than
 * one per row (docs/performance.md, item 28). Ids are never secrets: tokens and sessions carry their own
 * random bits.
 */
export function newId(prefix: string): string {
  return `${prefix}_${timeOrderedUuid().replaceAll("-", "")}`;
}
