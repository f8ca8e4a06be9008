import type { TMemory, TMemoryKind, TProvenance } from "@engram/contract";
import type { BusinessEventRecord } from "../events/records";
import type { HistoryPage } from "./history-page";
import type { MemoryRecord } from "./records";

/** The public shape of a memory (the contract's ZMemory). */
export function memoryView(memory: MemoryRecord): TMemory {
  return {
    id: memory.id,
    text: memory.text,
    subject: memory.subject,
    memoryKind: memory.memoryKind as TMemoryKind,
    confidence: memory.confidence,
    state: memory.state,
    agent: memory.agentSlug,
    environment: memory.environment,
    source: memory.source,
    reinforcementCount: memory.reinforcementCount,
    lastReinforcedAt: memory.lastReinforcedAt?.toISOString() ?? null,
    createdAt: memory.createdAt.toISOString(),
    updatedAt: memory.updatedAt.toISOString(),
  };
}

export function provenanceView(memory: MemoryRecord, history: HistoryPage, event: BusinessEventRecord | null): TProvenance {
  return {
    memory: memoryView(memory),
    source: {
      kind: memory.source,
      actor: memory.sourceActor,
      tokenId: memory.sourceTokenId,
      requestId: memory.sourceRequestId,
      idempotencyKey: memory.idempotencyKey,
      event: event && {
        id: event.id,
        type: event.type,
        source: event.source,
        subject: event.subject,
        metadata: event.metadata,
        idempotencyKey: event.idempotencyKey,
        receivedAt: event.receivedAt.toISOString(),
      },
    },
    history: history.entries.map((entry) => ({
      action: entry.action,
      fromState: entry.fromState,
      toState: entry.toState,
      actor: entry.actor,
      tokenId: entry.tokenId,
      reason: entry.reason,
      requestId: entry.requestId,
      at: entry.createdAt.toISOString(),
    })),
    nextHistoryCursor: history.nextCursor,
  };
}
