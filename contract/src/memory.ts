import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZAgentSlug, ZEnvironment, ZIdempotencyHeaders, ZIsoDate } from "./common";
import { ZErrorBody } from "./errors";

export const ZMemoryKind = z.enum(["fact", "preference", "decision", "procedure", "event", "observation"]);
export type TMemoryKind = z.infer<typeof ZMemoryKind>;

export const ZMemoryState = z.enum(["candidate", "durable", "suppressed", "tombstoned"]);
export type TMemoryState = z.infer<typeof ZMemoryState>;

export const ZMemorySource = z.enum(["api", "developer_event", "reflection"]);

export const memoryLimits = {
  textMaxLength: 8000,
  subjectMaxLength: 200,
  queryMaxLength: 2000,
  reasonMaxLength: 1000,
  actorMaxLength: 200,
  retrieveDefaultLimit: 10,
  retrieveMaxLimit: 100,
  defaultConfidence: 0.8,
  /** History entries provenance answers at most at once, and by default; `nextHistoryCursor` pages through more. */
  historyPageMax: 500,
} as const;

export const ZMemory = z.object({
  id: z.string(),
  text: z.string(),
  subject: z.string().nullable(),
  memoryKind: ZMemoryKind,
  confidence: z.number().min(0).max(1),
  state: ZMemoryState,
  /** Slug of the agent that owns the memory; null when the whole organization shares it. */
  agent: z.string().nullable(),
  environment: ZEnvironment,
  source: ZMemorySource,
  reinforcementCount: z.number().int().nonnegative(),
  lastReinforcedAt: ZIsoDate.nullable(),
  createdAt: ZIsoDate,
  updatedAt: ZIsoDate,
});
export type TMemory = z.infer<typeof ZMemory>;

export const ZScoredMemory = ZMemory.extend({ score: z.number() });

export const ZEncodeBody = z
  .object({
    text: z.string().trim().min(1).max(memoryLimits.textMaxLength),
    subject: z.string().trim().min(1).max(memoryLimits.subjectMaxLength).optional(),
    memoryKind: ZMemoryKind.default("fact"),
    confidence: z.number().min(0).max(1).default(memoryLimits.defaultConfidence),
  })
  .strict();
export type TEncodeBody = z.input<typeof ZEncodeBody>;

export const ZContextMode = z.enum(["full", "compact"]);

export const ZRetrieveBody = z
  .object({
    query: z.string().trim().min(1).max(memoryLimits.queryMaxLength),
    limit: z.number().int().min(1).max(memoryLimits.retrieveMaxLimit).default(memoryLimits.retrieveDefaultLimit),
    includeContext: z.boolean().default(false),
    /** `full` (default) lists each memory with its details; `compact` one short line each. */
    contextMode: ZContextMode.default("full"),
  })
  .strict();
export type TRetrieveBody = z.input<typeof ZRetrieveBody>;

export const ZRetrievalContext = z.object({
  /** The runtime context block a memory-augmented model would be given as a system message. */
  systemBlock: z.string(),
  mode: ZContextMode,
  stats: z.object({
    /** Memories the full-text search considered. */
    candidates: z.number().int(),
    /** Memories in the `memories` list. */
    returned: z.number().int(),
    /** Returned memories left out of the block as near-duplicates of a more useful one in it. */
    merged: z.number().int(),
    /** Tokens of the systemBlock (o200k tokenizer). */
    tokens: z.number().int(),
    tookMs: z.number(),
  }),
});

export const ZRetrieveResponse = z.object({
  memories: z.array(ZScoredMemory),
  context: ZRetrievalContext.optional(),
});
export type TRetrieveResponse = z.infer<typeof ZRetrieveResponse>;

export const ZControlBody = z
  .object({
    reason: z.string().trim().min(1).max(memoryLimits.reasonMaxLength).optional(),
    actor: z.string().trim().min(1).max(memoryLimits.actorMaxLength).optional(),
  })
  .strict();
export type TControlBody = z.input<typeof ZControlBody>;

export const ZMemoryResult = z.object({ memory: ZMemory });

/** `flagged`: reflection marked the memory (stale, superseded, demoted) without changing its state. */
export const ZHistoryAction = z.enum(["created", "reinforced", "suppressed", "restored", "tombstoned", "promoted", "rejected", "flagged"]);

/** Which page of a memory's history provenance answers, oldest first: `historyCursor` is a previous answer's `nextHistoryCursor`. */
export const ZHistoryPageQuery = z
  .object({
    historyCursor: z.string().max(200).optional(),
    historyLimit: z.coerce.number().int().min(1).max(memoryLimits.historyPageMax).default(memoryLimits.historyPageMax),
  })
  .strict();
export type THistoryPageQuery = z.input<typeof ZHistoryPageQuery>;

export const ZProvenance = z.object({
  memory: ZMemory,
  source: z.object({
    kind: ZMemorySource,
    actor: z.string().nullable(),
    tokenId: z.string().nullable(),
    requestId: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    /** The developer event the memory was triaged from, when its source is `developer_event`. */
    event: z
      .object({
        id: z.string(),
        type: z.string(),
        source: z.string().nullable(),
        subject: z.string().nullable(),
        metadata: z.record(z.unknown()).nullable(),
        idempotencyKey: z.string(),
        receivedAt: ZIsoDate,
      })
      .nullable(),
  }),
  history: z.array(
    z.object({
      action: ZHistoryAction,
      fromState: ZMemoryState.nullable(),
      toState: ZMemoryState,
      actor: z.string(),
      tokenId: z.string().nullable(),
      reason: z.string().nullable(),
      requestId: z.string().nullable(),
      at: ZIsoDate,
    }),
  ),
  /** Where the history goes on (newer entries), for `historyCursor`; null when this page ends it. */
  nextHistoryCursor: z.string().nullable(),
});
export type TProvenance = z.infer<typeof ZProvenance>;

const ZAgentHeader = z.object({ "x-service-agent": ZAgentSlug.optional() });

const agentPathParams = z.object({ agentSlug: ZAgentSlug });
const memoryPathParams = z.object({ id: z.string().min(1).max(100) });
const agentMemoryPathParams = agentPathParams.merge(memoryPathParams);

const c = initContract();

const exampleEncode = { text: "The payments service deploys with `make release` after CI is green.", subject: "payments-service", memoryKind: "procedure", confidence: 0.9 };
const exampleRetrieve = { query: "how do we deploy payments?", limit: 5, includeContext: true, contextMode: "full" };
const exampleControl = { reason: "Answered the on-call question correctly", actor: "oncall-bot" };

const encodeRoute = {
  method: "POST",
  body: ZEncodeBody,
  headers: ZIdempotencyHeaders.merge(ZAgentHeader),
  responses: { 201: ZMemoryResult, 409: ZErrorBody },
  metadata: { example: exampleEncode },
} as const;

const retrieveRoute = {
  method: "POST",
  headers: ZAgentHeader,
  body: ZRetrieveBody,
  responses: { 200: ZRetrieveResponse },
  metadata: { example: exampleRetrieve },
} as const;

const controlRoute = {
  method: "POST",
  headers: ZAgentHeader,
  body: ZControlBody,
  responses: { 200: ZMemoryResult, 404: ZErrorBody, 409: ZErrorBody },
  metadata: { example: exampleControl },
} as const;

const provenanceRoute = { method: "GET", headers: ZAgentHeader, query: ZHistoryPageQuery, responses: { 200: ZProvenance, 400: ZErrorBody, 404: ZErrorBody } } as const;
const deleteRoute = { method: "DELETE", headers: ZAgentHeader, body: c.noBody(), responses: { 200: ZMemoryResult, 404: ZErrorBody } } as const;

/**
 * Agent path forms come first: Express matches in order, so `/v1/memory/agents/x` must reach the agent
 * routes before the `/:id/...` patterns could read "agents" as a memory id.
 */
export const memoryContract = c.router(
  {
    encodeForAgent: { ...encodeRoute, path: "/agents/:agentSlug", pathParams: agentPathParams, summary: "Encode (remember) a memory owned by an agent" },
    retrieveForAgent: { ...retrieveRoute, path: "/agents/:agentSlug/retrieve", pathParams: agentPathParams, summary: "Retrieve memories inside an agent's boundary" },
    recallForAgent: { ...retrieveRoute, path: "/agents/:agentSlug/recall", pathParams: agentPathParams, summary: "Recall: alias of retrieve for an agent" },
    searchForAgent: { ...retrieveRoute, path: "/agents/:agentSlug/search", pathParams: agentPathParams, summary: "Search: alias of retrieve for an agent" },
    reinforceForAgent: { ...controlRoute, path: "/agents/:agentSlug/:id/reinforce", pathParams: agentMemoryPathParams, summary: "Reinforce a memory inside an agent's boundary" },
    suppressForAgent: { ...controlRoute, path: "/agents/:agentSlug/:id/suppress", pathParams: agentMemoryPathParams, summary: "Suppress a memory inside an agent's boundary" },
    restoreForAgent: { ...controlRoute, path: "/agents/:agentSlug/:id/restore", pathParams: agentMemoryPathParams, summary: "Restore a suppressed memory inside an agent's boundary" },
    provenanceForAgent: { ...provenanceRoute, path: "/agents/:agentSlug/:id/provenance", pathParams: agentMemoryPathParams, summary: "Inspect the provenance of a memory inside an agent's boundary" },
    deleteForAgent: { ...deleteRoute, path: "/agents/:agentSlug/:id", pathParams: agentMemoryPathParams, summary: "Tombstone a memory inside an agent's boundary" },

    encode: { ...encodeRoute, path: "", summary: "Encode (remember) a memory" },
    retrieve: { ...retrieveRoute, path: "/retrieve", summary: "Retrieve memories ranked for a query" },
    recall: { ...retrieveRoute, path: "/recall", summary: "Recall: friendly alias of retrieve" },
    search: { ...retrieveRoute, path: "/search", summary: "Search: compatibility alias of retrieve" },
    reinforce: { ...controlRoute, path: "/:id/reinforce", pathParams: memoryPathParams, summary: "Reinforce a memory (mark it useful)" },
    suppress: { ...controlRoute, path: "/:id/suppress", pathParams: memoryPathParams, summary: "Suppress a memory (hide it from retrieval)" },
    restore: { ...controlRoute, path: "/:id/restore", pathParams: memoryPathParams, summary: "Restore a suppressed memory" },
    provenance: { ...provenanceRoute, path: "/:id/provenance", pathParams: memoryPathParams, summary: "Inspect the provenance of a memory" },
    delete: { ...deleteRoute, path: "/:id", pathParams: memoryPathParams, summary: "Tombstone a memory" },
  },
  { pathPrefix: "/v1/memory" },
);
