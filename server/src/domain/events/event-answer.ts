import type { TEventResult, TWorkflowChange } from "@engram/contract";
import type { BusinessEventRecord } from "./records";

/**
 * The answer to an event's ingestion, stored with the event and repeated to every resend of its key. Events
 * stored before answers were kept get theirs rebuilt from the row, without the workflow changes they made.
 */
export function eventAnswer(event: BusinessEventRecord, candidateIds: string[], workflowChanges: TWorkflowChange[]): TEventResult {
  const allowed = !event.effectsSuppressed;
  return {
    eventId: event.id,
    replayed: false,
    idempotencyKey: event.idempotencyKey,
    keySource: event.keySource,
    environment: event.environment,
    effects: { productionAutomation: allowed, notifications: allowed, externalWrites: allowed },
    records: {
      sourceKind: "developer_event",
      businessEvent: { id: event.id, type: event.type, subject: event.subject, source: event.source, receivedAt: event.receivedAt.toISOString() },
    },
    triage: {
      rule: event.triageRule,
      outcome: event.triageRule === null ? "unknown_type" : candidateIds.length > 0 ? "candidate" : "recorded",
    },
    workflowChanges,
    candidateIds,
  };
}
