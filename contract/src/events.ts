import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZEnvironment, ZIdempotencyHeaders, ZIsoDate } from "./common";
import { ZErrorBody } from "./errors";

export const eventLimits = {
  typeMaxLength: 100,
  textMaxLength: 8000,
  sourceMaxLength: 100,
  subjectMaxLength: 200,
  metadataMaxBytes: 16 * 1024,
  metadataMaxDepth: 5,
  metadataMaxKeys: 200,
} as const;

/**
 * JSON may name a key `__proto__`, but no JavaScript object holds it as plain data (parsing drops it or turns
 * it into a prototype), so what is stored and what the derived key covers could differ: it is refused.
 */
const forbiddenKey = "__proto__";
const forbiddenKeyMessage = `"${forbiddenKey}" is not allowed as a metadata key`;

/** A problem with metadata: the path at fault under `metadata` (empty for the whole object) and what is wrong. */
export interface MetadataProblem {
  path: Array<string | number>;
  message: string;
}

/** Problems with a metadata object; empty when it is within bounds. */
export function metadataProblems(value: Record<string, unknown>): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  let keys = 0;
  // The path of the node being visited, shared: copied only for a problem. The walk stops once the keys are too
  // many, so a body of thousands of keys costs no more than one just over the limit.
  const path: Array<string | number> = [];
  const visit = (node: unknown, depth: number) => {
    if (node === null || typeof node !== "object") return;
    if (depth > eventLimits.metadataMaxDepth) {
      const at = ["metadata", ...path].map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`)).join("").slice(1);
      problems.push({ path: [], message: `${at} is nested deeper than ${eventLimits.metadataMaxDepth} levels` });
      return;
    }
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      if (++keys > eventLimits.metadataMaxKeys) return;
      path.push(Array.isArray(node) ? Number(key) : key);
      if (key === forbiddenKey) problems.push({ path: [...path], message: forbiddenKeyMessage });
      visit((node as Record<string, unknown>)[key], depth + 1);
      path.pop();
    }
  };
  visit(value, 1);
  if (keys > eventLimits.metadataMaxKeys) problems.push({ path: [], message: `metadata has more than ${eventLimits.metadataMaxKeys} keys` });
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > eventLimits.metadataMaxBytes) problems.push({ path: [], message: `metadata is ${bytes} bytes; at most ${eventLimits.metadataMaxBytes} are allowed` });
  return problems;
}

export const ZEventType = z
  .string()
  .max(eventLimits.typeMaxLength)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, "must be a dotted lower-case type such as deploy.completed");

export const ZEventBody = z
  .object({
    type: ZEventType,
    text: z.string().trim().min(1).max(eventLimits.textMaxLength),
    source: z.string().trim().min(1).max(eventLimits.sourceMaxLength).optional(),
    subject: z.string().trim().min(1).max(eventLimits.subjectMaxLength).optional(),
    metadata: z
      // The key check sees a top-level `__proto__` that the record would drop; nested ones are found below. A
      // pattern, where a refinement took several microseconds a key: a body may hold thousands before it is refused.
      .record(z.string().regex(/^(?!__proto__$)/, forbiddenKeyMessage), z.unknown())
      .superRefine((value, ctx) => {
        for (const { path, message } of metadataProblems(value)) ctx.addIssue({ code: z.ZodIssueCode.custom, message, path });
      })
      .optional(),
  })
  .strict();
export type TEventBody = z.input<typeof ZEventBody>;

export const ZWorkflowChange = z.object({
  workflow: z.string(),
  subject: z.string(),
  /** A sub-key within the subject, e.g. the target environment of a deployment. */
  track: z.string().nullable(),
  from: z.string().nullable(),
  to: z.string(),
});
export type TWorkflowChange = z.infer<typeof ZWorkflowChange>;

export const ZEventResult = z.object({
  eventId: z.string(),
  /** True when this answer repeats an earlier ingestion of the same event. */
  replayed: z.boolean(),
  idempotencyKey: z.string(),
  /** `header` when the caller sent Idempotency-Key, `derived` when Engram computed it from the event. */
  keySource: z.enum(["header", "derived"]),
  environment: ZEnvironment,
  /** What automation may do with this event: everything is off outside production. */
  effects: z.object({ productionAutomation: z.boolean(), notifications: z.boolean(), externalWrites: z.boolean() }),
  records: z.object({
    sourceKind: z.literal("developer_event"),
    businessEvent: z.object({ id: z.string(), type: z.string(), subject: z.string().nullable(), source: z.string().nullable(), receivedAt: ZIsoDate }),
  }),
  triage: z.object({
    /** The triage rule that matched the event type; null for unknown types. */
    rule: z.string().nullable(),
    outcome: z.enum(["candidate", "recorded", "unknown_type"]),
  }),
  workflowChanges: z.array(ZWorkflowChange),
  candidateIds: z.array(z.string()),
});
export type TEventResult = z.infer<typeof ZEventResult>;

const c = initContract();

export const eventsContract = c.router(
  {
    ingest: {
      method: "POST",
      path: "/events",
      headers: ZIdempotencyHeaders,
      body: ZEventBody,
      responses: { 201: ZEventResult, 409: ZErrorBody },
      summary: "Ingest a developer or system event (deploys, incidents, CI runs, pull requests, tickets, decisions)",
      metadata: {
        example: {
          type: "incident.resolved",
          text: "INC-42 resolved: payments-api 5xx spike caused by an expired TLS certificate; rotated and added expiry alert.",
          source: "pagerduty",
          subject: "INC-42",
          metadata: { service: "payments-api", severity: "sev2", url: "https://pagerduty.example.com/incidents/42" },
        },
      },
    },
  },
  { pathPrefix: "/v1/memory" },
);
