import type { PagePosition } from "../domain/kernel/page-cursor";

/** The columns a keyset page orders by: a time, then an id that breaks its ties. */
interface PageColumns<Time extends string, Id extends string> {
  time: Time;
  id: Id;
}

/**
 * The ORM filter for the rows past `position` in a list ordered by time then id, both `order` (an empty filter
 * from the first page). The bare bound on time lets the index scan start at the position; the OR breaks the tie
 * at that time by id. Callers whose filter already names the time column or an OR put this one in an `AND`.
 */
export function rowsPast<Time extends string = "createdAt", Id extends string = "id">(
  position: PagePosition | null,
  order: "asc" | "desc",
  columns: PageColumns<Time, Id> = { time: "createdAt", id: "id" } as PageColumns<Time, Id>,
) {
  if (!position) return {};
  const [bound, beyond] = order === "asc" ? (["gte", "gt"] as const) : (["lte", "lt"] as const);
  return {
    [columns.time]: { [bound]: position.createdAt },
    OR: [{ [columns.time]: { [beyond]: position.createdAt } }, { [columns.id]: { [beyond]: position.id } }],
  };
}
