// Plain JavaScript so the worker thread needs no TypeScript loader. See http-load.ts.
// POSTs `count` requests (cycling through `bodies`) with `concurrency` in flight, after `warmup` unmeasured
// ones, and answers every request's latency in milliseconds (to the first byte of the body when `firstByte`,
// else to its end) and the wall time of the measured requests.
import { parentPort, workerData } from "node:worker_threads";
import { httpPoster } from "./http-client.mjs";

const job = workerData;
const client = httpPoster(job.url, { connections: job.concurrency, headers: job.headers });

async function timedRequest(body, key) {
  const started = performance.now();
  const { status, firstByteAt, text } = await client.post(body, key === undefined ? undefined : { "idempotency-key": key });
  if (status !== (job.expectStatus ?? 200)) throw new Error(`${job.url} answered ${status}: ${text()}`);
  return (job.firstByte ? firstByteAt : performance.now()) - started;
}

async function run(count, record, phase) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(job.concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        const key = job.idempotencyKeys === undefined ? undefined : `${job.idempotencyKeys}-${phase}-${i}`;
        const elapsed = await timedRequest(job.bodies[i % job.bodies.length], key);
        if (record) record[i] = elapsed;
      }
    }),
  );
}

await run(job.warmup, null, "warmup");
const samples = new Float64Array(job.count);
const started = performance.now();
await run(job.count, samples, "measured");
const elapsedMs = performance.now() - started;
await client.close();
parentPort.postMessage({ samples, elapsedMs });
