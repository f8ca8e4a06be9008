import type { TEnvironment, TEventResult } from "@engram/contract";

/** Plain records of events and workflow states; repositories translate to and from storage rows. */

export type KeySource = TEventResult["keySource"];

/** An event as a client sends it. */
export interface EventInput {
  type: string;
  text: string;
  source?: string;
  subject?: string;
  metadata?: Record<string, unknown>;
}

export interface BusinessEventRecord {
  id: string;
  orgId: string;
  environment: TEnvironment;
  type: string;
  text: string;
  source: string | null;
  subject: string | null;
  metadata: Record<string, unknown> | null;
  idempotencyKey: string;
  keySource: KeySource;
  triageRule: string | null;
  effectsSuppressed: boolean;
  tokenId: string;
  requestId: string;
  receivedAt: Date;
}

export interface WorkflowStateRecord {
  orgId: string;
  environment: TEnvironment;
  workflow: string;
  subject: string;
  track: string;
  state: string;
  details: Record<string, unknown>;
  lastEventId: string;
  updatedAt: Date;
  /** When the first event about it was stored. */
  createdAt: Date;
}
