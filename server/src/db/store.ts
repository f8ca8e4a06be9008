import type { Repositories, Store } from "../domain/ports";
import type { DatabaseConfig } from "./config";
import { migrate } from "./migrations";
import { reindexSearchText } from "./reindex";
import { connectPrisma, type PrismaTx } from "./prisma";
import { embeddingRepository } from "./repositories/embeddings";
import { eventRepository } from "./repositories/events";
import { idempotencyRepository } from "./repositories/idempotency";
import { memoryRepository } from "./repositories/memories";
import {
  type FullTextSearch,
  postgresCandidates,
  postgresCandidatesById,
  postgresStats,
  sqliteCandidates,
  sqliteCandidatesById,
  sqliteStats,
} from "./repositories/memory-search";
import { organizationRepository } from "./repositories/organizations";
import { rateLimitRepository } from "./repositories/rate-limits";
import { tokenRepository } from "./repositories/tokens";
import { workflowRepository } from "./repositories/workflows";
import { writeAtomically } from "./write-batch";


function repositoriesOver(db: PrismaTx, provider: DatabaseConfig["provider"], search: FullTextSearch): Repositories {
  return {
    organizations: organizationRepository(db),
    tokens: tokenRepository(db),
    memories: memoryRepository(db, provider, search),
    embeddings: embeddingRepository(db),
    idempotency: idempotencyRepository(db),
    events: eventRepository(db),
    workflows: workflowRepository(db),
    rateLimits: rateLimitRepository(db),
  };
}

/** Brings the schema up to date, then opens the store the domain works through. */
export async function openStore(config: DatabaseConfig): Promise<Store> {
  await migrate(config);
  const prisma = await connectPrisma(config);
  await reindexSearchText(prisma);
  const search: FullTextSearch =
    config.provider === "sqlite"
      ? { candidates: sqliteCandidates, byId: sqliteCandidatesById, stats: sqliteStats }
      : { candidates: postgresCandidates, byId: postgresCandidatesById, stats: postgresStats };
  return {
    provider: config.provider,
    ...repositoriesOver(prisma, config.provider, search),
    writeAtomically: (build) => writeAtomically(prisma, build),
    transaction: (work) => prisma.$transaction((tx) => work(repositoriesOver(tx, config.provider, search)), { maxWait: 10_000, timeout: 20_000 }),
    async ping() {
      await prisma.$queryRawUnsafe("SELECT 1");
    },
    close: () => prisma.$disconnect(),
  };
}
