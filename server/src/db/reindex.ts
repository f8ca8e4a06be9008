import type { PrismaDb } from "./prisma";
import { SEARCH_VERSION, searchTextOf } from "./tables/memories/search-text";

const CHUNK = 500;

/**
 * Re-analyses memories whose searchText an older analyser wrote, so retrieval finds them with the
 * current one. Runs at start; a no-op (one indexed count) once every row is current. Only the texts the
 * current analyser writes differently are rewritten (each rewrite re-indexes the row and is logged as a
 * change of the collection); the others are only marked current.
 */
export async function reindexSearchText(prisma: PrismaDb): Promise<number> {
  let rewritten = 0;
  for (;;) {
    const stale = await prisma.memory.findMany({
      where: { searchVersion: { lt: SEARCH_VERSION } },
      select: { id: true, subject: true, text: true, searchText: true },
      take: CHUNK,
    });
    if (stale.length === 0) return rewritten;
    const changed = stale.flatMap((memory) => {
      const searchText = searchTextOf(memory);
      return searchText === memory.searchText ? [] : [{ id: memory.id, searchText }];
    });
    const rewrite = new Set(changed.map(({ id }) => id));
    const unchanged = stale.filter(({ id }) => !rewrite.has(id)).map(({ id }) => id);
    await prisma.$transaction([
      ...changed.map(({ id, searchText }) => prisma.memory.update({ where: { id }, data: { searchText, searchVersion: SEARCH_VERSION } })),
      prisma.memory.updateMany({ where: { id: { in: unchanged } }, data: { searchVersion: SEARCH_VERSION } }),
    ]);
    rewritten += changed.length;
  }
}
