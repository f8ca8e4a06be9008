import type { Repositories, Store } from "../domain/ports";
import type { DatabaseConfig } from "./config";
import { migrate } from "./migrations";
import { reindexSearchText } from "./reindex";
import { connectPrisma, type PrismaTx } from "./prisma";
import { agentRepository } from "./repositories/agents";
import { eventRepository } from "./repositories/events";
import { idempotencyRepository } from "./repositories/idempotency";
import { memoryRepository } from "./repositories/memories";
import { type CandidateSearch, postgresCandidates, sqliteCandidates } from "./repositories/memory-search";
import { organizationRepository } from "./repositories/organizations";
import { tokenRepository } from "./repositories/tokens";
import { workflowRepository } from "./repositories/workflows";
import { writeAtomically } from "./write-batch";

function repositoriesOver(db: PrismaTx, candidates: CandidateSearch): Repositories {
  return {
    organizations: organizationRepository(db),
    tokens: tokenRepository(db),
    agents: agentRepository(db),
    memories: memoryRepository(db, candidates),
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
  const candidates = config.provider === "sqlite" ? sqliteCandidates : postgresCandidates;
  return {
    provider: config.provider,
    ...repositoriesOver(prisma, candidates),
    writeAtomically: (build) => writeAtomically(prisma, build),
    transaction: (work) => prisma.$transaction((tx) => work(repositoriesOver(tx, candidates)), { maxWait: 10_000, timeout: 20_000 }),
    async ping() {
      await prisma.$queryRawUnsafe("SELECT 1");
    },
    close: () => prisma.$disconnect(),
  };
}
