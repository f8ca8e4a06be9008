// Plain JavaScript so the worker thread needs no TypeScript loader. See gateway.ts.
// POSTs `count` requests (cycling through `bodies`) with `concurrency` in flight, after `warmup` unmeasured
// ones, and answers every request's latency in milliseconds.
import { parentPort, workerData } from "node:worker_threads";

const job = workerData;

async function run(count, record) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(job.concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        const started = performance.now();
        const response = await fetch(job.url, { method: "POST", headers: job.headers, body: job.bodies[i % job.bodies.length] });
        await response.arrayBuffer();
        const elapsed = performance.now() - started;
        if (response.status !== 200) throw new Error(`${job.url} answered ${response.status}`);
        if (record) record[i] = elapsed;
      }
    }),
  );
}

await run(job.warmup, null);
const samples = new Float64Array(job.count);
await run(job.count, samples);
parentPort.postMessage(samples);
