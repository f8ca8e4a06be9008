// Plain JavaScript so the worker thread needs no TypeScript loader. See http-load.ts.
import { parentPort, workerData } from "node:worker_threads";
import { httpPoster } from "./http-client.mjs";

const job = workerData;
const client = httpPoster(job.url, { connections: job.concurrency, headers: job.headers });
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(job.concurrency, job.bodies.length) }, async () => {
    while (next < job.bodies.length) {
      const { status, text } = await client.post(job.bodies[next++]);
      if (status !== job.expectStatus) throw new Error(`${job.url} answered ${status}: ${text()}`);
    }
  }),
);
const elapsedMs = performance.now() - started;
await client.close();
parentPort.postMessage(elapsedMs);
