import type { PrismaDb } from "./prisma";
import { SEARCH_VERSION, searchTextOf } from "./tables/memories/search-text";

const CHUNK = 500;

/**
 * Re-analyses memories whose searchText an older analyser wrote, so retrieval finds them with the
 * current one. Runs at start; a no-op (one indexed count) once every row is current.
 */
export async function reindexSearchText(prisma: PrismaDb): Promise<number> {
  let updated = 0;
  for (;;) {
    const stale = await prisma.memory.findMany({
      where: { searchVersion: { lt: SEARCH_VERSION } },
      select: { id: true, subject: true, text: true },
      take: CHUNK,
    });
    if (stale.length === 0) return updated;
    await prisma.$transaction(
      stale.map((memory) =>
        prisma.memory.update({ where: { id: memory.id }, data: { searchText: searchTextOf(memory), searchVersion: SEARCH_VERSION } }),
      ),
    );
    updated += stale.length;
  }
}
