import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnLoopback } from "./listen";

/**
 * A throwaway Postgres server from the local binaries, on a free loopback port, for tests and benchmarks.
 * A missing Postgres is an error, never a skip.
 */

export interface LocalPostgres {
  /** A superuser URL of the server's `postgres` database. */
  adminUrl: string;
  stop(): void;
}

const BIN_DIRS = [process.env.PG_BIN_DIR, "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"];

function postgresBinDir(): string {
  const found = BIN_DIRS.find((dir) => dir && existsSync(join(dir, "initdb")));
  if (!found) throw new Error("Postgres server binaries not found (looked in /usr/lib/postgresql/*/bin); install postgresql-15");
  return found;
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Postgres refuses to run as root; as root, run its binaries as the postgres user. */
function runPostgresCommand(binary: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? "su" : binary;
  const argv = asRoot ? ["postgres", "-s", "/bin/sh", "-c", [binary, ...args].map(shellQuote).join(" ")] : args;
  const result = spawnSync(command, argv, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${binary} failed: ${result.stderr || result.stdout}`);
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

export async function startLocalPostgres(): Promise<LocalPostgres> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), "engram-pg-"));
  const dataDir = join(dir, "data");
  const stopServer = () => runPostgresCommand(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    chmodSync(dir, 0o777);
    if (process.getuid?.() === 0) execFileSync("chown", ["postgres", dir]);
    const port = await freePort();
    runPostgresCommand(join(bin, "initdb"), ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
    // Durability settings off: the data is thrown away, and tests and benchmarks measure the service, not fsync.
    const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    runPostgresCommand(join(bin, "pg_ctl"), ["-D", dataDir, "-o", serverOptions, "-l", join(dir, "server.log"), "-w", "start"]);
    return {
      adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      stop() {
        try {
          stopServer();
        } finally {
          remove();
        }
      },
    };
  } catch (error) {
    // A server that came up but did not answer in time must not outlive its deleted data directory.
    if (existsSync(join(dataDir, "postmaster.pid"))) {
      try {
        stopServer();
      } catch {}
    }
    remove();
    throw error;
  }
}
