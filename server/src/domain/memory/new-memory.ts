import type { TMemoryKind, TMemoryState } from "@engram/contract";
import type { Caller } from "../access/caller";
import { newId } from "../kernel/ids";
import type { PlannedMemory } from "./ports";
import type { HistoryRecord, MemoryRecord, MemorySourceKind } from "./records";

export interface NewMemoryInput {
  caller: Caller;
  agentSlug: string | null;
  text: string;
  subject: string | null;
  memoryKind: TMemoryKind;
  confidence: number;
  state: TMemoryState;
  source: MemorySourceKind;
  /** Who the memory and its "created" history row name as its author. */
  actor: string;
  idempotencyKey: string | null;
  eventId: string | null;
  /** Why it was created, recorded in the history row. */
  reason: string | null;
  at: Date;
}

/** A new memory and its "created" history row, written together by the caller's batch. */
export function newMemory(input: NewMemoryInput): { memory: PlannedMemory; history: HistoryRecord } {
  const { caller, actor, at } = input;
  const memory: PlannedMemory = {
    id: newId("mem"),
    orgId: caller.orgId,
    environment: caller.environment,
    agentSlug: input.agentSlug,
    text: input.text,
    subject: input.subject,
    memoryKind: input.memoryKind,
    confidence: input.confidence,
    state: input.state,
    source: input.source,
    sourceRequestId: caller.requestId,
    sourceTokenId: caller.tokenId,
    sourceActor: actor,
    idempotencyKey: input.idempotencyKey,
    eventId: input.eventId,
    createdAt: at,
  };
  const history: HistoryRecord = {
    memoryId: memory.id,
    action: "created",
    fromState: null,
    toState: memory.state,
    actor,
    tokenId: caller.tokenId,
    reason: input.reason,
    requestId: caller.requestId,
    createdAt: at,
  };
  return { memory, history };
}

/** A planned memory as it reads once written: used once, at its creation. */
export function asWritten(memory: PlannedMemory): MemoryRecord {
  return { ...memory, reinforcementCount: 0, lastReinforcedAt: null, recentUses: [memory.createdAt], updatedAt: memory.createdAt };
}
