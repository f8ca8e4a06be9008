import type { TEnvironment } from "@engram/contract";
import type { BusinessEventRecord, WorkflowStateRecord } from "./records";

export type WorkflowKey = Pick<WorkflowStateRecord, "orgId" | "environment" | "workflow" | "subject" | "track">;

/** An event as stored, with the answer its first ingestion gave. */
export interface StoredEvent {
  event: BusinessEventRecord;
  /** The answer first given; null for events stored before answers were kept. */
  answer: unknown;
  /** The candidates made from it; read only for events without a stored answer. */
  candidateIds: string[];
}

export interface EventRepository {
  find(id: string): Promise<BusinessEventRecord | null>;
  /** The events stored under these keys in one organization and environment. */
  findByKeys(scope: { orgId: string; environment: TEnvironment }, keys: readonly string[]): Promise<StoredEvent[]>;
  /** How many events of each type an organization has received, per environment. */
  countByType(orgId: string): Promise<Array<{ environment: TEnvironment; type: string; known: boolean; count: number }>>;
}

export interface WorkflowRepository {
  findMany(keys: readonly WorkflowKey[]): Promise<WorkflowStateRecord[]>;
  list(orgId: string, environment: TEnvironment): Promise<WorkflowStateRecord[]>;
}
