import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as PostgresPrismaClient } from "./generated/postgres/client.ts";
import { type Prisma, PrismaClient as SqlitePrismaClient } from "./generated/sqlite/client.ts";
import type { DatabaseConfig } from "./config";

/** Both clients are generated from one model source, so the SQLite client's types describe both. */
export type PrismaDb = SqlitePrismaClient;
export type PrismaTx = Prisma.TransactionClient;

/** Opens a Prisma client over the configured driver adapter (no native query engine). */
export async function connectPrisma(config: DatabaseConfig): Promise<PrismaDb> {
  if (config.provider === "postgres") {
    const adapter = new PrismaPg({ connectionString: config.url, max: config.poolSize ?? 10 });
    const client = new PostgresPrismaClient({ adapter }) as unknown as PrismaDb;
    await client.$connect();
    return client;
  }
  // better-sqlite3's `timeout` is SQLite's busy timeout: wait for another process's write lock.
  const adapter = new PrismaBetterSQLite3({ url: config.file, timeout: 5000 });
  const client = new SqlitePrismaClient({ adapter });
  await client.$connect();
  // Per-connection settings; the adapter keeps one connection for the client's lifetime.
  await client.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  await client.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  return client;
}

/** True for a unique-constraint violation, from the ORM (P2002) or from raw SQL (P2010), on either adapter. */
export function isUniqueViolation(error: unknown): boolean {
  const { code, meta } = (error ?? {}) as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return code === "P2002" || (code === "P2010" && meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation");
}
