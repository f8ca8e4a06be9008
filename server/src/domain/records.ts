import type { TEnvironment, TMemoryState, TScope } from "@engram/contract";

/** Plain records the domain works with; repositories translate to and from storage rows. */

export type Plan = "free" | "spark" | "seed" | "rise" | "boost";
export type WriteMode = "direct" | "candidate";
export type MemorySourceKind = "api" | "developer_event" | "reflection";
export type HistoryAction = "created" | "reinforced" | "suppressed" | "restored" | "tombstoned" | "promoted" | "rejected";

export interface OrganizationRecord {
  id: string;
  name: string;
  plan: Plan;
  founderWorkspace: boolean;
  writeMode: WriteMode;
  environmentsEnabled: boolean;
  createdAt: Date;
}

export interface TokenRecord {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  scopes: TScope[];
  environment: TEnvironment | null;
  /** Agents the token is limited to; null when it may act for any agent. */
  agentSlugs: string[] | null;
  createdAt: Date;
  revokedAt: Date | null;
}

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

export interface StoredResponse {
  requestHash: string;
  status: number;
  body: unknown;
}

export type KeySource = "header" | "derived";

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
}
