import type { TEnvironment, TMemoryKind, TMemoryState, TReflectionAction, TReflectionProcess } from "@engram/contract";

/** What reflection reads of a memory. */
export interface ReflectionMemory {
  id: string;
  agentSlug: string | null;
  subject: string | null;
  text: string;
  memoryKind: TMemoryKind;
  confidence: number;
  state: TMemoryState;
  source: "api" | "developer_event" | "reflection";
  /** The developer event a memory was triaged from. */
  eventId: string | null;
  /** The analysed terms of subject and text, space-separated. */
  searchText: string;
  reinforcementCount: number;
  lastReinforcedAt: Date | null;
  recentUses: Date[];
  createdAt: Date;
  duplicateOfId: string | null;
  supersededBy: string | null;
  /** The replacement a person restored this memory from, which does not supersede it again. */
  supersessionDismissedBy: string | null;
  staleSince: Date | null;
  activation: number | null;
  activationAt: Date | null;
}

/** The organization and environment one run works in: nothing outside it is read or changed. */
export interface ReflectionScope {
  orgId: string;
  environment: TEnvironment;
}

export interface ReflectionEventRecord {
  id: string;
  orgId: string;
  environment: TEnvironment;
  runId: string;
  process: TReflectionProcess;
  action: TReflectionAction;
  memoryId: string | null;
  relatedId: string | null;
  reason: string;
  details: Record<string, unknown> | null;
  createdAt: Date;
}

export type RunTrigger = "schedule" | "person" | "cli";
export type RunStatus = "running" | "completed" | "failed";
export type ProcessCounts = Partial<Record<TReflectionProcess, { examined: number; actions: number }>>;

export interface ReflectionRunRecord extends ReflectionScope {
  id: string;
  trigger: RunTrigger;
  triggeredBy: string | null;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  counts: ProcessCounts;
  errors: Array<{ process: string; message: string }>;
  /** The processes finished so far (a run taken over goes on with the next). */
  progress: { done: TReflectionProcess[] };
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
}
