import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/db/store";
import { createServices } from "../src/services";
import { benchmarkQueries, syntheticMemories } from "../bench/corpus";
const store = await openStore({ provider: "sqlite", file: join(mkdtempSync(join(tmpdir(), "engram-prof-")), "engram.db") });
const services = createServices(store, {});
const org = await services.organizations.create({ name: "p" });
const { token } = await services.tokens.create({ orgId: org.id, name: "p", scopes: ["memory:read", "memory:write"], environment: "production" });
const caller = await services.tokens.authenticate(token, "p");
const N = Number(process.env.N ?? 10000);
let batch: Promise<unknown>[] = [];
for (const m of syntheticMemories(N)) {
  batch.push(services.memories.encode(caller, null, m as never, undefined));
  if (batch.length === 32) { await Promise.all(batch); batch = []; }
}
await Promise.all(batch);
const ctx = process.env.CTX !== "0";
const { Session } = await import("node:inspector/promises");
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.start");
for (let r = 0; r < 2; r++) {
  const times: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t = performance.now();
    await services.memories.retrieve(caller, null, { query: benchmarkQueries[i % benchmarkQueries.length]!, limit: 10, includeContext: ctx, contextMode: "full" });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`p50 ${times[250]!.toFixed(2)} p95 ${times[475]!.toFixed(2)}`);
}
const { profile } = await session.post("Profiler.stop");
(await import("node:fs")).writeFileSync("/tmp/prof/retrieve.cpuprofile", JSON.stringify(profile));
await store.close();
