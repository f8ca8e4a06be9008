/**
 * Remember, recall with context, reinforce, suppress, inspect provenance and tombstone with the SDK.
 *   ENGRAM_TOKEN=acm_… pnpm --filter @engram/examples memory-basics
 */
import { Engram, NotFoundError } from "@engram/sdk";

// Reads ENGRAM_TOKEN and ENGRAM_BASE_URL (default http://localhost:8787) from the environment.
const engram = new Engram();

const procedure = await engram.memory.remember({
  text: "Payments deploys with `make release` after CI is green.",
  subject: "payments",
  memoryKind: "procedure",
  confidence: 0.9,
});
console.log("remembered", procedure.id);

// withResponse() also gives the answer's headers: request id and the rate-limit window.
const { data, response } = await engram.memory.recall({ query: "how do we deploy payments?", includeContext: true }).withResponse();
console.log(`recalled ${data.memories.length} memories (request ${response.requestId}, ${response.rateLimit?.remaining ?? "unlimited"} requests left this minute)`);
console.log(`context block for your model:\n${data.context?.systemBlock}`);

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
