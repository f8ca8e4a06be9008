import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as PostgresPrismaClient } from "./generated/postgres/client.ts";
import { type Prisma, PrismaClient as SqlitePrismaClient } from "./generated/sqlite/client.ts";
import { DEFAULT_BUSY_TIMEOUT_MS, type DatabaseConfig } from "./config";

/**
 * Both clients come from one model source and storage uses only what they share, so the SQLite client's types
 * describe both; TypeScript cannot prove the Postgres client fits them (see docs/storage-and-migrations.md).
 */
export type PrismaDb = SqlitePrismaClient;
export type PrismaTx = Prisma.TransactionClient;

/**
 * Opens a Prisma client over the configured driver adapter (no native query engine). `lockWaitMs` is how
 * long a SQLite statement itself waits for another process's write lock (the busy timeout); that wait is
 * synchronous and stops this process's event loop, so the store waits 0 and retries asynchronously instead.
 */
export async function connectPrisma(config: DatabaseConfig, { lockWaitMs, pool }: { lockWaitMs?: number; pool?: pg.Pool } = {}): Promise<PrismaDb> {
  const busyTimeoutMs = config.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (config.provider === "postgres") {
    // A pool given is the client's (and ended with it); the caller may read over it directly too.
    const adapter = endingFailedTransactions(new PrismaPg(pool ?? postgresPool(config), { disposeExternalPool: true }));
    // The one place the Postgres client is seen through the SQLite client's types (see PrismaDb).
    const client = new PostgresPrismaClient({ adapter }) as unknown as PrismaDb;
    await client.$connect();
    return client;
  }
  const adapter = endingFailedTransactions(new PrismaBetterSQLite3({ url: config.file, timeout: lockWaitMs ?? busyTimeoutMs }));
  const client = new SqlitePrismaClient({ adapter });
  await client.$connect();
  // Per-connection settings; the adapter keeps one connection for the client's lifetime.
  await client.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  await client.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  return client;
}

/**
 * The Postgres connections of one store. Without a connection timeout a query waits for a free connection (or
 * an unreachable server) forever. Statements prepared by name are planned for their values every time: a
 * generic plan cannot weigh a full-text query's terms, and one that suits common words reads every row for
 * rare ones (measured: 5 → 26 ms for one retrieval, docs/performance.md).
 */
export function postgresPool(config: Extract<DatabaseConfig, { provider: "postgres" }>): pg.Pool {
  return new pg.Pool({ ...connectionSettings(config), max: config.poolSize ?? 10, options: "-c plan_cache_mode=force_custom_plan" });
}

/**
 * Opening a connection (TCP, TLS, authentication) takes a moment however short the busy timeout: below this the
 * pool would fail to open any. pg reads a timeout of 0 as none at all, so 0 must not reach it either.
 */
const CONNECT_TIMEOUT_FLOOR_MS = 1_000;

/** Where every pool of a store connects, and how long it waits for a connection (free, or newly opened). */
const connectionSettings = (config: Extract<DatabaseConfig, { provider: "postgres" }>) => ({
  connectionString: config.url,
  connectionTimeoutMillis: Math.max(config.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, CONNECT_TIMEOUT_FLOOR_MS),
});

/** How the connections a store writes its batches on name themselves to Postgres (`pg_stat_activity`). */
export const WRITES_APPLICATION_NAME = "engram (batch writes)";
/** Each group commit (memories, events) writes one batch at a time; the rest spare a connection being replaced. */
const WRITE_CONNECTIONS = 4;

/**
 * The connections a store's batch writes run on. They plan as Postgres does by default: a statement prepared by
 * name is planned once when its plan proves the same for any values, and so are the foreign-key checks its
 * inserts make. Batch writes are inserts of the rows given (their deletes go unnamed, planned per call anyway), so
 * planning them on every call, as the store's other connections do, only cost a lone write time
 * (docs/performance.md, item 34).
 */
export function postgresWritePool(config: Extract<DatabaseConfig, { provider: "postgres" }>): pg.Pool {
  const pool = new pg.Pool({ ...connectionSettings(config), max: WRITE_CONNECTIONS, application_name: WRITES_APPLICATION_NAME });
  // An idle connection that fails (the server restarted) is dropped by the pool; the next write meets the trouble itself.
  pool.on("error", () => {});
  return pool;
}

/**
 * Prisma hands a transaction's connection back (Postgres) or lets the next transaction begin (SQLite) only
 * once its COMMIT or ROLLBACK succeeds. When that statement fails, e.g. on a connection the server
 * terminated, the connection would stay taken for good and the pool shrink; this ends the transaction anyway.
 */
function endingFailedTransactions<F extends PrismaPg | PrismaBetterSQLite3>(factory: F): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => {
      const tx = await startTransaction(isolationLevel);
      const executeRaw = tx.executeRaw.bind(tx);
      tx.executeRaw = async (query) => {
        try {
          return await executeRaw(query);
        } catch (error) {
          if (query.sql === "COMMIT" || query.sql === "ROLLBACK") {
            // A failed COMMIT leaves SQLite's one connection inside the transaction: roll it back first.
            await executeRaw({ sql: "ROLLBACK", args: [], argTypes: [] }).catch(() => undefined);
            await tx.rollback();
          }
          throw error;
        }
      };
      return tx;
    };
    return adapter;
  };
  return factory;
}

/**
 * True for a unique-constraint violation, from the ORM (P2002) or from raw SQL (P2010), on either adapter,
 * or from the drivers themselves (pg: SQLSTATE 23505; better-sqlite3: SQLITE_CONSTRAINT_UNIQUE or _PRIMARYKEY).
 */
export function isUniqueViolation(error: unknown): boolean {
  const { code, severity, meta } = (error ?? {}) as { code?: unknown; severity?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return (
    code === "P2002" || (code === "P2010" && meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation") || (code === "23505" && typeof severity === "string") || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY"
  );
}
