// Plain JavaScript so the worker thread needs no TypeScript loader. See reflection.ts.
// POSTs the bodies in turn with `concurrency` requests in flight until the parent says "stop", then answers
// each request's start (epoch milliseconds) and latency (milliseconds), interleaved.
import { parentPort, workerData } from "node:worker_threads";
import { httpPoster } from "./http-client.mjs";

const job = workerData;
const client = httpPoster(job.url, { connections: job.concurrency, headers: job.headers });
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
      const { status } = await client.post(body);
      if (status !== 200) throw new Error(`${job.url} answered ${status}`);
      samples.push(startedAt, performance.now() - started);
    }
  }),
);
await client.close();
parentPort.postMessage(Float64Array.from(samples));
