/**
 * Send a failed CI run and a resolved incident to Engram as developer events, and see what they became.
 *   ENGRAM_TOKEN=acm_… pnpm --filter @engram/examples events
 */
import { Engram } from "@engram/sdk";

const engram = new Engram();

// A CI system knows its run id: using it as the key makes a redelivered webhook a replay, not a second event.
const runId = process.env.GITHUB_RUN_ID ?? `local-${Date.now()}`;
const ci = await engram.events.send(
  {
    type: "ci.run.failed",
    text: "payments-api main failed: the refunds suite timed out waiting for the ledger container.",
    source: "github-actions",
    subject: "payments-api",
    metadata: { repo: "acme/payments-api", branch: "main", commit: "4f2c1e9", run: runId },
  },
  { idempotencyKey: `github-actions:${runId}` },
);
console.log(`ci event ${ci.eventId}: ${ci.triage.outcome}; workflow`, ci.workflowChanges);

// Without a key of its own, Engram derives one from source, type and payload: the same report twice is one event.
const incident = await engram.events.send({
  type: "incident.resolved",
  text: "INC-42 resolved: expired TLS certificate on payments-api; rotated, and an expiry alert was added.",
  source: "pagerduty",
  subject: "INC-42",
  metadata: { service: "payments-api", severity: "sev2" },
});
console.log(`incident event ${incident.eventId} (${incident.replayed ? "replayed" : "new"}, key ${incident.keySource})`);

// Events become candidate memories, to be reviewed; their provenance points back at the event.
for (const id of incident.candidateIds) {
  const { memory, source } = await engram.memory.provenance(id);
  console.log(`candidate ${memory.id} (${memory.state}, ${memory.memoryKind}) from ${source.event?.source} ${source.event?.type}`);
}
