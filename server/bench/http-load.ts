/**
 * HTTP load from a worker thread, so the client's own work does not share the server's event loop: POSTs
 * bodies with `concurrency` requests in flight and times each request.
 */
import { Worker } from "node:worker_threads";

/** Requests to time: POSTs to `url` cycling through `bodies`. */
export interface LatencyTarget {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  /** The status every answer must have: 200 unless given. */
  expectStatus?: number;
  /** When set, request i carries the Idempotency-Key `${idempotencyKeys}-${i}` (warm-up requests their own). */
  idempotencyKeys?: string;
}

export interface Measured {
  /** Each measured request's milliseconds, to its answer's end or, with `firstByte`, to its first byte. */
  samples: Float64Array;
  /** The wall time of the measured requests. */
  elapsedMs: number;
}

/** Times `count` requests with `concurrency` in flight, after `warmup` unmeasured ones. */
export function latencyFromWorker(target: LatencyTarget, concurrency: number, count: number, warmup: number, firstByte = false): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./latency-worker.mjs", import.meta.url), { workerData: { ...target, concurrency, count, warmup, firstByte } });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}
