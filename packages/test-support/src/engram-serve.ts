import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { request } from "node:http";
import type { DatabaseConfig } from "@engram/server/db/config";
import { temporaryDirectory } from "./temporary-directory";

export interface EngramServe {
  url: string;
  /** The token the first run printed (empty when the database had organizations), and the owner's password. */
  token: string;
  adminPassword: string;
  /** The primary process and, at the moment of asking, its workers. */
  pid: number;
  workerPids(): number[];
  /** Everything printed so far (JSON log lines and the first-run greeting). */
  output(): string;
  /** Sends `signal` to the primary and resolves with its exit status once it and every worker are gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The known owner password, so tests can sign in. */
const ADMIN_PASSWORD = "cluster-owner-password-1";

/**
 * `engram serve --workers N` as a user starts it: the CLI entry in its own process over `database`, listening on
 * a free loopback port that its workers share; resolves after the first-run greeting.
 */
export async function startEngramServe(database: DatabaseConfig, workers: number, env: Record<string, string> = {}): Promise<EngramServe> {
  const entry = new URL("../../../server/src/cli.ts", import.meta.url).pathname;
  const dataDir = database.provider === "sqlite" ? database.file.slice(0, database.file.lastIndexOf("/")) : temporaryDirectory("engram-serve-");
  const child: ChildProcess = spawn(process.execPath, ["--conditions=source", "--import", "tsx", entry, "serve", "--workers", String(workers)], {
    env: {
      ...process.env,
      ENGRAM_DATA_DIR: dataDir,
      DATABASE_URL: database.provider === "postgres" ? database.url : "",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ENGRAM_CONSOLE_DIR: "off",
      ENGRAM_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (/Try: curl -s -c engram\.cookies/.test(output)) return resolve();
      if (child.exitCode !== null) return reject(new Error(`engram serve exited with ${child.exitCode}:\n${output}`));
      setTimeout(check, 50);
    };
    check();
  });
  // The primary's node children (tsx also starts an esbuild service); ps answers 1 when there are none.
  const workerPids = () => {
    let listed = "";
    try {
      listed = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(child.pid)], { encoding: "utf8" });
    } catch {
      return [];
    }
    return listed
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .filter(([, command]) => command === "node")
      .map(([pid]) => Number(pid));
  };
  return {
    url: output.match(/"url":"([^"]+)"/)![1]!,
    token: output.match(/ENGRAM_TOKEN=(acm_\S+)/)?.[1] ?? "",
    adminPassword: ADMIN_PASSWORD,
    pid: child.pid!,
    workerPids,
    output: () => output,
    async stop(signal = "SIGTERM") {
      const workers = workerPids();
      if (child.exitCode === null) child.kill(signal);
      const code = await exited;
      // The workers are gone too: a pid that still answers signal 0 would be an orphan.
      for (const pid of workers) {
        for (let tries = 0; isAlive(pid) && tries < 100; tries++) await new Promise((r) => setTimeout(r, 50));
      }
      return code;
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One request on a connection of its own (closed after it): a cluster hands each new connection to its next
 * worker, so successive calls reach every worker in turn.
 */
export function onNewConnection(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? (body ? "POST" : "GET"), agent: false, headers: { ...(body ? { "content-type": "application/json" } : {}), ...init.headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
