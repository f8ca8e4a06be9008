import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { type DatabaseConfig, redactedUrl } from "./config";

/**
 * Applies the SQL migrations that `prisma migrate diff` produced, one folder per provider, and records
 * them in Prisma's `_prisma_migrations` table so Prisma's own tools read the same history. Prisma's JS
 * schema engine cannot apply migrations to Postgres offline, hence this small runner. Each migration
 * runs in its own transaction; concurrent starters are serialised (SQLite write lock, Postgres
 * advisory lock) so a migration is applied exactly once.
 */

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

const MIGRATION_LOCK_ID = 72_616_913; // any constant; names this runner's advisory lock
/** A server that accepts the connection but never answers (or a network that drops it) fails the start after this. */
const CONNECT_TIMEOUT_MS = 10_000;

export function migrationsDir(provider: DatabaseConfig["provider"]): string {
  // Found by walking up from this module so the same code works from src/ and from the bundled dist/.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "prisma", "migrations", provider);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`migrations for ${provider} not found`);
    dir = parent;
  }
}

export function loadMigrations(provider: DatabaseConfig["provider"]): Migration[] {
  const dir = migrationsDir(provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** The database the settings name could not be opened or brought up to date (unreachable, refused, not a database): where and why. */
export class DatabaseOpenError extends Error {
  constructor(config: DatabaseConfig, cause: unknown) {
    super(`cannot open the database at ${whereIs(config)}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "DatabaseOpenError";
  }
}

/** The database file, or the Postgres URL without its password (the message may reach logs and terminals). */
const whereIs = (config: DatabaseConfig): string => (config.provider === "sqlite" ? config.file : redactedUrl(config.url));

/** Applies pending migrations; `upTo` stops after the named one (for upgrade tests). */
export async function migrate(config: DatabaseConfig, options: { upTo?: string } = {}): Promise<MigrationResult> {
  const all = loadMigrations(config.provider);
  const migrations = options.upTo ? all.slice(0, all.findIndex((m) => m.name === options.upTo) + 1) : all;
  if (migrations.length === 0) throw new Error(`no migration named ${options.upTo}`);
  // The first contact with the database: whatever stops it (unreachable, not a database, locked, refused) is told so.
  try {
    return config.provider === "sqlite" ? migrateSqlite(config.file, migrations) : await migratePostgres(config.url, migrations);
  } catch (error) {
    throw new DatabaseOpenError(config, error);
  }
}

/**
 * Makes `dir` and the directories above it that are missing, one level at a time: Node's own recursive mkdir
 * loops without end where a level cannot be made although the level above exists (anywhere under /proc).
 * Returns the directories it made, outermost first.
 */
function makeDirectories(dir: string): string[] {
  if (existsSync(dir)) return [];
  const made = makeDirectories(dirname(dir));
  try {
    mkdirSync(dir);
    made.push(dir);
  } catch (error) {
    // Made meanwhile by another process starting on the same data directory.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return made;
}

/**
 * The longest database path SQLite opens, in UTF-8 bytes: its file names are at most 512 bytes, and the
 * rollback journal's is the database's with `-journal` after it.
 */
const SQLITE_LONGEST_PATH = 512 - "-journal".length;

/** Opens (or creates) the SQLite file; a failure leaves no directories behind that were made for it. */
function openSqliteFile(file: string): Database.Database {
  const made = makeDirectories(dirname(file));
  try {
    return new Database(file, { timeout: 10_000 });
  } catch (error) {
    for (const dir of made.reverse()) rmdirSync(dir);
    const bytes = Buffer.byteLength(resolve(file));
    if (bytes <= SQLITE_LONGEST_PATH) throw error;
    throw new Error(`${(error as Error).message}: its path is ${bytes} bytes long, and SQLite opens paths of at most ${SQLITE_LONGEST_PATH}`, { cause: error });
  }
}

function migrateSqlite(file: string, migrations: Migration[]): MigrationResult {
  const db = openSqliteFile(file);
  try {
    db.pragma("journal_mode = WAL");
    // Prisma's SQLite migrations rebuild tables (create, copy, drop, rename). With foreign keys on,
    // dropping a parent table would cascade-delete its children, and the pragma cannot change inside a
    // transaction, so it is turned off here and integrity is checked before each migration commits.
    db.pragma("foreign_keys = OFF");
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
    const applied: string[] = [];
    for (const migration of migrations) {
      const apply = db.transaction(() => {
        const done = db
          .prepare(`SELECT checksum FROM "_prisma_migrations" WHERE migration_name = ? AND finished_at IS NOT NULL AND rolled_back_at IS NULL`)
          .get(migration.name) as { checksum: string } | undefined;
        if (done) return assertSameChecksum(migration, done.checksum);
        const startedAt = new Date().toISOString();
        db.exec(migration.sql);
        const violations = db.pragma("foreign_key_check") as unknown[];
        if (violations.length > 0) throw new Error(`migration ${migration.name} left ${violations.length} foreign key violations`);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
        ).run(randomUUID(), migration.checksum, new Date().toISOString(), migration.name, startedAt);
        applied.push(migration.name);
      });
      apply.immediate();
    }
    return { applied, alreadyApplied: migrations.length - applied.length };
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const applied: string[] = [];
    for (const migration of migrations) {
      const done = await client.query<{ checksum: string }>(
        `SELECT checksum FROM "_prisma_migrations" WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        [migration.name],
      );
      if (done.rows[0]) {
        assertSameChecksum(migration, done.rows[0].checksum);
        continue;
      }
      await client.query("BEGIN");
      try {
        const startedAt = new Date();
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), migration.checksum, migration.name, startedAt],
        );
        await client.query("COMMIT");
        applied.push(migration.name);
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
    }
    return { applied, alreadyApplied: migrations.length - applied.length };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

function assertSameChecksum(migration: Migration, recorded: string): void {
  if (recorded !== migration.checksum) {
    throw new Error(`migration ${migration.name} was changed after it was applied (checksum differs)`);
  }
}
