import type { TMemoryKind } from "@engram/contract";

/**
 * What each known event type means: which workflow it moves and to what state, and whether it becomes a
 * memory candidate (with what kind and confidence). Types not listed are stored and counted, nothing more.
 * The README reproduces this table; keep them in step.
 */
export interface TriageRule {
  workflow?: { name: Workflow; state: string };
  candidate?: { memoryKind: TMemoryKind; confidence: number };
}

export type Workflow = "deployment" | "incident" | "ci" | "pull_request" | "support_ticket";

export const triageRules: Readonly<Record<string, TriageRule>> = {
  "deploy.started": { workflow: { name: "deployment", state: "deploying" } },
  "deploy.completed": { workflow: { name: "deployment", state: "deployed" }, candidate: { memoryKind: "event", confidence: 0.9 } },
  "deploy.failed": { workflow: { name: "deployment", state: "failed" }, candidate: { memoryKind: "event", confidence: 0.8 } },
  "deploy.rolled_back": { workflow: { name: "deployment", state: "rolled_back" }, candidate: { memoryKind: "event", confidence: 0.85 } },
  "incident.opened": { workflow: { name: "incident", state: "open" }, candidate: { memoryKind: "event", confidence: 0.6 } },
  "incident.updated": { workflow: { name: "incident", state: "investigating" } },
  "incident.resolved": { workflow: { name: "incident", state: "resolved" }, candidate: { memoryKind: "event", confidence: 0.9 } },
  "ci.run.started": { workflow: { name: "ci", state: "running" } },
  "ci.run.succeeded": { workflow: { name: "ci", state: "passed" } },
  "ci.run.failed": { workflow: { name: "ci", state: "failed" }, candidate: { memoryKind: "observation", confidence: 0.6 } },
  "pr.opened": { workflow: { name: "pull_request", state: "open" } },
  "pr.merged": { workflow: { name: "pull_request", state: "merged" }, candidate: { memoryKind: "event", confidence: 0.8 } },
  "pr.closed": { workflow: { name: "pull_request", state: "closed" } },
  "review.finding": { candidate: { memoryKind: "observation", confidence: 0.7 } },
  "support.ticket.opened": { workflow: { name: "support_ticket", state: "open" }, candidate: { memoryKind: "observation", confidence: 0.6 } },
  "support.ticket.resolved": { workflow: { name: "support_ticket", state: "resolved" }, candidate: { memoryKind: "fact", confidence: 0.75 } },
  "preference.recorded": { candidate: { memoryKind: "preference", confidence: 0.8 } },
  "decision.recorded": { candidate: { memoryKind: "decision", confidence: 0.9 } },
};

/** Deployments are tracked per target environment, named by `metadata.environment` (data, never routing). */
export function workflowTrack(workflow: Workflow, metadata: Record<string, unknown> | undefined): string {
  const target = metadata?.environment;
  return workflow === "deployment" && typeof target === "string" ? target.slice(0, 100) : "";
}

/** The details worth keeping on a workflow record, taken from the event's metadata. */
export function workflowDetails(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const key of ["version", "commit", "sha", "url", "severity", "pr", "branch", "service", "run"]) {
    const value = metadata?.[key];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") details[key] = value;
  }
  return details;
}
