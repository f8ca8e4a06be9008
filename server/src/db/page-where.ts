import type { ListPage } from "../domain/kernel/page-cursor";

/**
 * The ORM's filter and take for a page of rows ordered by `createdAt` then `idColumn`, oldest first: rows after
 * the page's position (`createdAt >= t` bounds the index scan; the OR breaks the tie at t by id).
 */
export function ascendingPage<Id extends string>(page: ListPage | undefined, idColumn: Id) {
  if (!page) return { where: {}, take: undefined };
  const { after, limit } = page;
  if (!after) return { where: {}, take: limit };
  return {
    where: { createdAt: { gte: after.createdAt }, OR: [{ createdAt: { gt: after.createdAt } }, { [idColumn]: { gt: after.id } }] },
    take: limit,
  };
}
