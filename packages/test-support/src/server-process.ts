import { fork } from "node:child_process";
import type { DatabaseConfig } from "@engram/server/db/config";

export interface ServerProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * Another server over the same database in a real second OS process: its own connection, its own SQLite
 * locks and its own event loop, which a second server in the test's own process does not model faithfully.
 */
export function startServerProcess(database: DatabaseConfig): Promise<ServerProcess> {
  const script = new URL("./server-process-child.ts", import.meta.url).pathname;
  const child = fork(script, [JSON.stringify(database)], { execArgv: ["--conditions=source", "--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server process exited with ${code} before listening`)));
    child.once("message", (message) => {
      const { url } = message as { url: string };
      resolve({
        url,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.send("stop");
          await exited;
        },
      });
    });
  });
}
