import type { Repositories, Store } from "../domain/ports";
import type { DatabaseConfig } from "./config";
import { migrate } from "./migrations";
import { reindexSearchText } from "./reindex";
import { connectPrisma, type PrismaTx } from "./prisma";
import { eventRepository } from "./repositories/events";
import { idempotencyRepository } from "./repositories/idempotency";
import { memoryRepository } from "./repositories/memories";
import { type CandidateSearch, postgresCandidates, postgresStats, sqliteCandidates, sqliteStats, type StatsQueries } from "./repositories/memory-search";
import { organizationRepository } from "./repositories/organizations";
import { tokenRepository } from "./repositories/tokens";
import { workflowRepository } from "./repositories/workflows";
import { writeAtomically } from "./write-batch";

type FullTextSearch = { candidates: CandidateSearch; stats: StatsQueries };

function repositoriesOver(db: PrismaTx, search: FullTextSearch): Repositories {
  return {
    organizations: organizationRepository(db),
    tokens: tokenRepository(db),
    memories: memoryRepository(db, search),
    idempotency: idempotencyRepository(db),
    events: eventRepository(db),
    workflows: workflowRepository(db),
  };
}

/** Brings the schema up to date, then opens the store the domain works through. */
export async function openStore(config: DatabaseConfig): Promise<Store> {
  await migrate(config);
  const prisma = await connectPrisma(config);
  await reindexSearchText(prisma);
  const search: FullTextSearch =
    config.provider === "sqlite" ? { candidates: sqliteCandidates, stats: sqliteStats } : { candidates: postgresCandidates, stats: postgresStats };
  return {
    provider: config.provider,
    ...repositoriesOver(prisma, search),
    writeAtomically: (build) => writeAtomically(prisma, build),
    transaction: (work) => prisma.$transaction((tx) => work(repositoriesOver(tx, search)), { maxWait: 10_000, timeout: 20_000 }),
    async ping() {
      await prisma.$queryRawUnsafe("SELECT 1");
    },
    close: () => prisma.$disconnect(),
  };
}
