#!/usr/bin/env node
// Keeps N cores busy for a bounded time, to check that the test suite passes on a loaded machine:
//   node scripts/cpu-hog.mjs [--workers N] [--seconds S]     (defaults: 1 worker, 600 s; stops by itself)
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";

const { values } = parseArgs({
  options: { workers: { type: "string", default: "1" }, seconds: { type: "string", default: "600" }, help: { type: "boolean", short: "h" } },
});
if (values.help) {
  console.log("usage: node scripts/cpu-hog.mjs [--workers N] [--seconds S]");
  process.exit(0);
}
const workers = Number(values.workers);
const seconds = Number(values.seconds);
const refuse = (message) => {
  console.error(`cpu-hog: ${message}`);
  process.exit(2);
};
if (!Number.isInteger(workers) || workers < 1 || workers > 64) refuse(`--workers must be a whole number from 1 to 64, got "${values.workers}"`);
if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) refuse(`--seconds must be more than 0 and at most 3600, got "${values.seconds}"`);

// Each worker spins until the deadline on its own, so the hog ends even if this thread is starved.
const busyLoop = `
  const { workerData } = require("node:worker_threads");
  let x = 0;
  while (Date.now() < workerData.deadline) for (let i = 0; i < 1e6; i++) x = (x * 31 + i) % 1000003;
`;
const deadline = Date.now() + seconds * 1000;
const threads = Array.from({ length: workers }, () => new Worker(busyLoop, { eval: true, workerData: { deadline } }));
console.error(`cpu-hog: ${workers} busy worker(s) for up to ${seconds} s (pid ${process.pid}; Ctrl-C or SIGTERM stops it)`);

const stop = () => Promise.all(threads.map((thread) => thread.terminate())).then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
await Promise.all(threads.map((thread) => new Promise((resolve) => thread.once("exit", resolve))));
