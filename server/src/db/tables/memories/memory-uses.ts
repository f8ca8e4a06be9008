import type { Prisma } from "../../generated/sqlite/client.ts";
import type { PrismaTx } from "../../prisma";
import { prismaReads } from "../../sql-reads";
import { entryTime } from "../memory-history";
import { type MemoryRow, recentUsesOf } from "./memory-table";

/**
 * Counts one use of the memory `where` names (a reinforcement), its use times extended by `addUse`, or
 * returns null when no memory matches. Touching the row first takes its lock (the row's on Postgres, the
 * database's on SQLite) and returns the use times to add to, so concurrent uses each count and none is lost;
 * the use is then one update, one logged change, and the scope's collection row is locked only from there
 * to the commit. Reflection's reinforcement (on the driver, db/tables/reflection) counts a use in the same order.
 */
export async function countUse(
  db: PrismaTx,
  where: Prisma.MemoryWhereInput & { id: string },
  at: Date,
  addUse: (recentUses: readonly Date[], at: Date) => Date[],
): Promise<MemoryRow | null> {
  const [touched] = await db.memory.updateManyAndReturn({ where, data: { updatedAt: at } });
  if (!touched) return null;
  // The use is dated as its history entry will be: after the latest one (memory-history.ts).
  const usedAt = await entryTime(prismaReads(db), touched.id, at);
  return db.memory.update({
    where: { id: touched.id },
    data: { reinforcementCount: { increment: 1 }, lastReinforcedAt: usedAt, recentUses: JSON.stringify(addUse(recentUsesOf(touched), usedAt)), updatedAt: usedAt },
  });
}
