// Plain JavaScript so the worker thread needs no TypeScript loader. See reflection.ts.
// POSTs the bodies in turn with `concurrency` requests in flight until the parent says "stop", then answers
// each request's start (epoch milliseconds) and latency (milliseconds), interleaved.
import { parentPort, workerData } from "node:worker_threads";

const job = workerData;
let stopping = false;
parentPort.once("message", () => (stopping = true));

const samples = [];
let next = 0;
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    while (!stopping) {
      const body = job.bodies[next++ % job.bodies.length];
      const startedAt = performance.timeOrigin + performance.now();
      const started = performance.now();
      const response = await fetch(job.url, { method: "POST", headers: job.headers, body });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${job.url} answered ${response.status}`);
      samples.push(startedAt, performance.now() - started);
    }
  }),
);
parentPort.postMessage(Float64Array.from(samples));
