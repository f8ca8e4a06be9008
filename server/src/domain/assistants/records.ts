import type { TAssistantType, TCapabilityConfigs } from "@engram/contract";

export interface AssistantRecord {
  id: string;
  orgId: string;
  name: string;
  type: TAssistantType;
  /** The member a personal assistant belongs to; null for org_shared ones. */
  ownerUserId: string | null;
  /** Enabled capability ids, answer_questions first. */
  capabilities: string[];
  capabilityConfigs: TCapabilityConfigs;
  /** Raised by every change: the assistant's ETag. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export const changeActions = ["created", "renamed", "capabilities_changed", "deleted"] as const;
export type ChangeAction = (typeof changeActions)[number];

/** The fields a change is about, before and after it. */
export type AssistantSnapshot = Partial<Pick<AssistantRecord, "name" | "type" | "capabilities" | "capabilityConfigs">>;

export interface AssistantChangeRecord {
  id: string;
  orgId: string;
  assistantId: string;
  action: ChangeAction;
  actorUserId: string | null;
  /** e.g. `user:alice@example.com`, or `cli`. */
  actor: string;
  before: AssistantSnapshot | null;
  after: AssistantSnapshot;
  /** The assistant's version after the change. */
  version: number;
  createdAt: Date;
}
