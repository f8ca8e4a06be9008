import type { ListPage } from "../kernel/page-cursor";
import type { AssistantChangeRecord, AssistantRecord } from "./records";

export type NewAssistant = Omit<AssistantRecord, "id" | "version" | "updatedAt">;
export type AssistantChanges = Partial<Pick<AssistantRecord, "name" | "capabilities" | "capabilityConfigs">>;

export interface AssistantRepository {
  create(assistant: NewAssistant): Promise<AssistantRecord>;
  /** The organization's assistant with this id; another organization's is as absent as a missing one. */
  find(orgId: string, id: string): Promise<AssistantRecord | null>;
  /**
   * The organization's assistants, oldest first: with `visibleTo`, only the shared ones and that person's own;
   * with `page`, those after its position, at most its limit.
   */
  list(orgId: string, options?: { visibleTo?: string; page?: ListPage }): Promise<AssistantRecord[]>;
  /**
   * Applies the changes and raises the version in one statement, only if the version is still `expected`;
   * null when it is not (or the assistant is gone).
   */
  update(orgId: string, id: string, expected: number, changes: AssistantChanges, at: Date): Promise<AssistantRecord | null>;
  /** Deletes the assistant only if its version is still `expected`. */
  delete(orgId: string, id: string, expected: number): Promise<boolean>;
  /** How many personal assistants the person has in the organization. */
  countPersonal(orgId: string, ownerUserId: string): Promise<number>;
  /** Deletes a member's personal assistants in the organization, answering what was deleted. */
  deletePersonal(orgId: string, ownerUserId: string): Promise<AssistantRecord[]>;
  appendChange(change: Omit<AssistantChangeRecord, "id">): Promise<AssistantChangeRecord>;
  /** Many changes in a few statements (a departing member's assistants, deleted together). */
  appendChanges(changes: ReadonlyArray<Omit<AssistantChangeRecord, "id">>): Promise<void>;
  /** The assistant's changes, newest first: those before version `beforeVersion` when given. */
  changes(orgId: string, assistantId: string, page: { beforeVersion: number | null; limit: number }): Promise<AssistantChangeRecord[]>;
}
