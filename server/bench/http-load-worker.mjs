// Plain JavaScript so the worker thread needs no TypeScript loader. See http-load.ts.
import { parentPort, workerData } from "node:worker_threads";

const job = workerData;
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(job.concurrency, job.bodies.length) }, async () => {
    while (next < job.bodies.length) {
      const body = job.bodies[next++];
      const response = await fetch(job.url, { method: "POST", headers: job.headers, body });
      if (response.status !== job.expectStatus) throw new Error(`${job.url} answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
  }),
);
parentPort.postMessage(performance.now() - started);
