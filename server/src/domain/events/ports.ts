import type { TEnvironment } from "@engram/contract";
import type { PagePosition } from "../kernel/page-cursor";
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
  /** Events by id, in no particular order. */
  findMany(ids: readonly string[]): Promise<BusinessEventRecord[]>;
  /** Up to `limit` events of the scope (of one type, when given), newest first (receivedAt, then id), after `before`. */
  listNewest(scope: { orgId: string; environment: TEnvironment }, type: string | null, before: PagePosition | null, limit: number): Promise<BusinessEventRecord[]>;
  /** The events stored under these keys in one organization and environment. */
  findByKeys(scope: { orgId: string; environment: TEnvironment }, keys: readonly string[]): Promise<StoredEvent[]>;
  /** How many events of each type an organization has received, per environment. */
  countByType(orgId: string): Promise<Array<{ environment: TEnvironment; type: string; known: boolean; count: number }>>;
}

export interface WorkflowRepository {
  findMany(keys: readonly WorkflowKey[]): Promise<WorkflowStateRecord[]>;
  /** The scope's workflow states (of one workflow, when given), by workflow, subject and track. */
  /** Every workflow state of the environment, by workflow, subject and track (the CLI's full listing). */
  list(orgId: string, environment: TEnvironment): Promise<WorkflowStateRecord[]>;
  /** The most recently changed first, at most `limit`, optionally of one workflow. */
  listRecent(orgId: string, environment: TEnvironment, options: { workflow?: string; limit: number }): Promise<WorkflowStateRecord[]>;
}
