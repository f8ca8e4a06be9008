// Plain JavaScript so the worker thread needs no TypeScript loader. See gateway.ts.
// POSTs `count` requests (cycling through `bodies`) with `concurrency` in flight, after `warmup` unmeasured
// ones, and answers every request's latency in milliseconds (to the first byte of the body when `firstByte`,
// else to its end) and the wall time of the measured requests.
import { parentPort, workerData } from "node:worker_threads";

const job = workerData;

async function timedRequest(body) {
  const started = performance.now();
  const response = await fetch(job.url, { method: "POST", headers: job.headers, body });
  const reader = response.body.getReader();
  let firstByte = null;
  for (;;) {
    const { done } = await reader.read();
    firstByte ??= performance.now() - started;
    if (done) break;
  }
  if (response.status !== 200) throw new Error(`${job.url} answered ${response.status}`);
  return job.firstByte ? firstByte : performance.now() - started;
}

async function run(count, record) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(job.concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        const elapsed = await timedRequest(job.bodies[i % job.bodies.length]);
        if (record) record[i] = elapsed;
      }
    }),
  );
}

await run(job.warmup, null);
const samples = new Float64Array(job.count);
const started = performance.now();
await run(job.count, samples);
parentPort.postMessage({ samples, elapsedMs: performance.now() - started });
