/**
 * Remember, recall with context, reinforce, suppress, inspect provenance and tombstone with the SDK.
 *   ENGRAM_TOKEN=acm_… pnpm --filter @engram/examples memory-basics
 */
import { Engram, NotFoundError } from "@engram/sdk";

const engram = new Engram({ baseUrl: process.env.ENGRAM_BASE_URL ?? "http://localhost:8787" });

const procedure = await engram.memory.remember({
  text: "Payments deploys with `make release` after CI is green.",
  subject: "payments",
  memoryKind: "procedure",
  confidence: 0.9,
});
console.log("remembered", procedure.id);

const { memories, context } = await engram.memory.recall({ query: "how do we deploy payments?", includeContext: true });
console.log(`recalled ${memories.length} memories; context block for your model:\n${context?.systemBlock}`);

await engram.memory.reinforce(procedure.id, { reason: "answered a deploy question", actor: "examples" });
await engram.memory.suppress(procedure.id, { reason: "demonstrating suppression" });
await engram.memory.restore(procedure.id);

const provenance = await engram.memory.provenance(procedure.id);
console.log("history:", provenance.history.map((entry) => `${entry.action} by ${entry.actor}`).join(", "));

await engram.memory.tombstone(procedure.id);
try {
  await engram.agent("examples-bot").memory.provenance("mem_does_not_exist");
} catch (error) {
  if (error instanceof NotFoundError) console.log("unknown memories answer", error.status, error.code);
  else throw error;
}
