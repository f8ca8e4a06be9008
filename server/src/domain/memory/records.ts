import type { TEnvironment, TMemoryState, ZHistoryAction, ZMemorySource } from "@engram/contract";
import type { z } from "zod";

/** Plain records of memories and their history; repositories translate to and from storage rows. */

export type MemorySourceKind = z.infer<typeof ZMemorySource>;
export type HistoryAction = z.infer<typeof ZHistoryAction>;

export interface MemoryRecord {
  id: string;
  orgId: string;
  environment: TEnvironment;
  agentSlug: string | null;
  text: string;
  subject: string | null;
  memoryKind: string;
  confidence: number;
  state: TMemoryState;
  source: MemorySourceKind;
  sourceRequestId: string | null;
  sourceTokenId: string | null;
  sourceActor: string | null;
  idempotencyKey: string | null;
  eventId: string | null;
  reinforcementCount: number;
  lastReinforcedAt: Date | null;
  /** The most recent uses (encode and reinforcements), oldest first, for base-level activation. */
  recentUses: Date[];
  createdAt: Date;
  updatedAt: Date;
}

export interface HistoryRecord {
  memoryId: string;
  action: HistoryAction;
  fromState: TMemoryState | null;
  toState: TMemoryState;
  actor: string;
  tokenId: string | null;
  reason: string | null;
  requestId: string | null;
  createdAt: Date;
}

/** A history entry as stored, with the id that orders entries of the same instant. */
export interface StoredHistoryEntry extends HistoryRecord {
  id: string;
}
