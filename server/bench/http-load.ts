/**
 * HTTP load from a worker thread, so the client's own work does not share the server's event loop:
 * POSTs every body with `concurrency` requests in flight.
 */
import { Worker } from "node:worker_threads";

export interface LoadJob {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  concurrency: number;
  expectStatus: number;
}

/** Resolves with the elapsed milliseconds. */
export function loadFromWorker(job: LoadJob): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./http-load-worker.mjs", import.meta.url), { workerData: job });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}
