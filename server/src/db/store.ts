import type { WaitMeter } from "../domain/kernel/wait-meter";
import type { Repositories, Store } from "../domain/store";
import { DEFAULT_BUSY_TIMEOUT_MS, type DatabaseConfig } from "./config";
import { asAppFailure, retryWhileBusy } from "./failures";
import { migrate } from "./migrations";
import { reindexSearchText } from "./reindex";
import { connectPrisma, postgresPool, postgresWritePool, type PrismaTx } from "./prisma";
import { postgresReads, prismaReads, type SqlReads, sqliteReads, timedReads } from "./sql-reads";
import { arrangeCheckpoints, type CheckpointMode } from "./sqlite-checkpoints";
import { openSqliteConnection } from "./sqlite-connection";
import { sqliteReadThread } from "./sqlite-read-thread";
import { postgresSessions, sqliteSessions } from "./sql-session";
import { writeBatchOver } from "./batch-writes";
import { type Dialect, dialectFor } from "./dialect";
import { tokenRepository } from "./tables/access-tokens";
import { agentRepository } from "./tables/agents";
import { assistantRepository } from "./tables/assistants";
import { loginThrottleRepository } from "./tables/login-throttles";
import { membershipRepository } from "./tables/memberships";
import { sessionRepository } from "./tables/sessions";
import { userRepository } from "./tables/users";
import { dailyUsageRepository } from "./tables/reflection/daily-usage";
import { reflectionEventRepository } from "./tables/reflection/reflection-events";
import { reflectionMemoryRepository } from "./tables/reflection/reflection-memories";
import { reflectionMetricsRepository } from "./tables/reflection/reflection-metrics";
import { reflectionRunRepository } from "./tables/reflection/reflection-runs";
import { reflectionSettingsRepository } from "./tables/reflection/reflection-settings";
import { eventRepository } from "./tables/business-events";
import { idempotencyRepository } from "./tables/idempotency-records";
import { memoryRepository } from "./tables/memories/memory-repository";
import { embeddingRepository } from "./tables/memory-embeddings";
import { organizationRepository } from "./tables/organizations";
import { rateLimitRepository } from "./tables/rate-limit-counters";
import { workflowRepository } from "./tables/workflow-states";
import { postgresTransaction, sqliteTransaction, writeUnitOfWork } from "./write-batch";

/**
 * `reads`, when given, serves retrieval's hot reads on the driver, and `scans` the reads of whole environments;
 * inside a transaction all go through it.
 */
function repositoriesOver(db: PrismaTx, dialect: Dialect, reads?: SqlReads, scans?: SqlReads): Repositories {
  return {
    organizations: organizationRepository(db),
    tokens: tokenRepository(db),
    agents: agentRepository(db),
    memories: memoryRepository(db, dialect, reads),
    embeddings: embeddingRepository(db),
    idempotency: idempotencyRepository(db, dialect, reads),
    events: eventRepository(db, reads),
    workflows: workflowRepository(db, reads),
    rateLimits: rateLimitRepository(db, dialect),
    users: userRepository(db),
    memberships: membershipRepository(db),
    sessions: sessionRepository(db, dialect),
    loginThrottle: loginThrottleRepository(db, dialect),
    assistants: assistantRepository(db),
    reflectionRuns: reflectionRunRepository(db),
    reflectionEvents: reflectionEventRepository(db),
    reflectionSettings: reflectionSettingsRepository(db),
    reflectionMetrics: reflectionMetricsRepository(scans ?? prismaReads(db), dialect),
    dailyUsage: dailyUsageRepository(db),
  };
}

/** The same repositories, each call run again while the database is busy, then answered as a 503 (failures.ts). */
function guarded(repositories: Repositories, retry: Retry): Repositories {
  return Object.fromEntries(Object.entries(repositories).map(([name, repository]) => [name, guard(repository, retry)])) as unknown as Repositories;
}

type Retry = <T>(attempt: () => Promise<T>) => Promise<T>;

/** A repository's methods, guarded; its plain properties (what its backend prefers) pass as they are. */
function guard<T extends object>(repository: T, retry: Retry): T {
  return Object.fromEntries(
    Object.entries(repository).map(([name, member]) => [
      name,
      typeof member === "function" ? (...args: unknown[]) => retry(() => (member as (...args: unknown[]) => Promise<unknown>)(...args)) : member,
    ]),
  ) as T;
}

export interface StoreOptions {
  /** Who copies a SQLite store's write-ahead log into the database (see CheckpointMode); SQLite by default. */
  checkpoints?: CheckpointMode;
  /** Where a failed background checkpoint is reported. */
  onCheckpointError?: (error: Error) => void;
}

/** Brings the schema up to date, then opens the store the domain works through. */
export async function openStore(config: DatabaseConfig, { checkpoints = "inline", onCheckpointError = () => {} }: StoreOptions = {}): Promise<Store> {
  await migrate(config);
  // SQLite statements do not wait for another process's lock themselves (that wait would stop the event
  // loop): every call runs again, asynchronously, while the database is busy, for up to the busy timeout.
  const pool = config.provider === "postgres" ? postgresPool(config) : undefined;
  const prisma = await connectPrisma(config, { lockWaitMs: 0, pool });
  const busyTimeoutMs = config.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const retryTiming = (waits?: WaitMeter): Retry => (attempt) => retryWhileBusy(attempt, busyTimeoutMs, waits);
  const retry = retryTiming();
  await retry(() => reindexSearchText(prisma));
  const dialect = dialectFor(config.provider);
  // The hot paths run on the drivers: on Postgres the reads over the pool Prisma's adapter shares and the batch
  // writes over a pool of their own, on SQLite on a connection of the store's own (docs/storage-and-migrations.md).
  const sqlite = config.provider === "sqlite" ? openSqliteConnection(config.file) : null;
  const reads = pool ? postgresReads(pool) : sqliteReads(sqlite!);
  // On SQLite a scan, or a reflection page (3.5-5 ms of 200 among 100,000 memories), would hold the event loop as
  // long as it runs: it runs in a thread (on Postgres, in the server).
  const scans = config.provider === "sqlite" ? sqliteReadThread(config.file, busyTimeoutMs) : null;
  // Reflection changes memories a few at a time, on SQLite on a connection of its own.
  const reflectionSqlite = config.provider === "sqlite" ? openSqliteConnection(config.file) : null;
  const checkpointPast = async (pages: number) => {
    for (const connection of [sqlite!, reflectionSqlite!]) connection.db.pragma(`wal_autocheckpoint = ${pages}`);
    await prisma.$executeRawUnsafe(`PRAGMA wal_autocheckpoint = ${pages}`);
  };
  const background = config.provider === "sqlite" ? await arrangeCheckpoints(checkpoints, config.file, checkpointPast, onCheckpointError) : null;
  // The driver's writers wait while the store's checkpoint thread restarts the log (sqlite-checkpoints.ts).
  const reflectionSessions = pool ? postgresSessions(pool) : sqliteSessions(reflectionSqlite!, background?.gate);
  const writePool = config.provider === "postgres" ? postgresWritePool(config) : null;
  const runAtomically = writePool ? postgresTransaction(writePool) : sqliteTransaction(sqlite!, background?.gate);
  return {
    provider: config.provider,
    ...guarded(repositoriesOver(prisma, dialect, reads, scans ?? undefined), retry),
    // A transaction that met a lock or a conflict (on SQLite also: another process wrote after this one
    // first read) rolled back whole, so it runs again whole.
    writeAtomically: (build) => retry(() => writeUnitOfWork(runAtomically, (unit) => build(writeBatchOver(unit)))),
    transaction: (work) => retry(() => prisma.$transaction((tx) => work(repositoriesOver(tx, dialect)), { maxWait: 10_000, timeout: 20_000 })),
    reflection(waits) {
      const { session, transaction } = reflectionSessions(waits);
      // On SQLite pages are read in the thread, whose answer is a wait; on Postgres every statement is one. So is
      // the pause before a write that met a lock runs again (on SQLite, say, behind a checkpoint's restart).
      const pages = scans ? (waits ? timedReads(scans, waits) : scans) : session;
      const retryTimed = retryTiming(waits);
      return {
        memories: guard(reflectionMemoryRepository(session, dialect, pages), retryTimed),
        transaction: (work) => retryTimed(() => transaction((inside) => work(reflectionMemoryRepository(inside, dialect)))),
      };
    },
    async ping() {
      await prisma.$queryRawUnsafe("SELECT 1").catch((error) => {
        throw asAppFailure(error);
      });
    },
    async close() {
      await background?.stop();
      await scans?.close();
      sqlite?.close();
      reflectionSqlite?.close();
      await Promise.all([prisma.$disconnect(), writePool?.end()]);
    },
  };
}
