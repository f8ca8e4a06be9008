import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZAgentSlug, ZEnvironment, ZIsoDate } from "../common";
import { eventLimits } from "../events";
import { memoryLimits, ZHistoryPageQuery, ZMemory, ZMemoryKind, ZMemorySource, ZMemoryState, ZProvenance } from "../memory";
import { ZSuccess } from "./responses";

/** The memory explorer's page size: at most this many memories at once. */
export const explorerLimits = { defaultLimit: 50, maxLimit: 100 } as const;

/**
 * How many developer events and workflow states one answer holds at most. An event may carry 8,000 characters of
 * text and 16 KiB of metadata, which JSON can write six times longer (control characters), so these bound the
 * answer, and the time writing it takes, by the largest rows rather than by typical ones.
 */
export const eventViewLimits = { eventsDefault: 50, eventsMax: 50, workflowsDefault: 100, workflowsMax: 100 } as const;

/**
 * Explorer filters. With `q` the real retrieval engine ranks durable memories (each with its score) and the
 * filters narrow its answer; without `q`, memories in any state are listed newest first, a page at a time.
 */
export const ZMemorySearchQuery = z
  .object({
    environment: ZEnvironment.default("production"),
    q: z.string().trim().min(1).max(memoryLimits.queryMaxLength).optional(),
    kind: ZMemoryKind.optional(),
    state: ZMemoryState.optional(),
    agent: ZAgentSlug.optional(),
    subject: z.string().trim().min(1).max(memoryLimits.subjectMaxLength).optional(),
    source: ZMemorySource.optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(explorerLimits.maxLimit).default(explorerLimits.defaultLimit),
  })
  .strict();
export type TMemorySearchQuery = z.input<typeof ZMemorySearchQuery>;

/** A memory in the explorer: `score` is the retrieval score when a query ranked it, else null. */
export const ZExplorerMemory = ZMemory.extend({ score: z.number().nullable() });
export type TExplorerMemory = z.infer<typeof ZExplorerMemory>;

/** A developer event as the console lists it. */
export const ZDeveloperEvent = z.object({
  id: z.string(),
  environment: ZEnvironment,
  type: z.string(),
  text: z.string(),
  source: z.string().nullable(),
  subject: z.string().nullable(),
  metadata: z.record(z.unknown()).nullable(),
  idempotencyKey: z.string(),
  /** The triage rule that matched its type; null for types Engram does not know. */
  triageRule: z.string().nullable(),
  receivedAt: ZIsoDate,
});
export type TDeveloperEvent = z.infer<typeof ZDeveloperEvent>;

/** The current state of one incident, deployment, pull request, ticket or CI run, from the latest event about it. */
export const ZWorkflowState = z.object({
  workflow: z.string(),
  subject: z.string(),
  /** A sub-key within the subject, e.g. the target environment of a deployment; empty when there is none. */
  track: z.string(),
  state: z.string(),
  details: z.record(z.unknown()),
  lastEventId: z.string(),
  updatedAt: ZIsoDate,
});
export type TWorkflowState = z.infer<typeof ZWorkflowState>;

const ZMemoryParams = z.object({ id: z.string().min(1).max(100) });
const ZReasonBody = z.object({ reason: z.string().trim().min(1).max(memoryLimits.reasonMaxLength).optional() }).strict().optional();
const ZMemoryAnswer = ZSuccess.extend({ memory: ZMemory });
const ZEnvironmentQuery = z.object({ environment: ZEnvironment.default("production") });

const c = initContract();

/**
 * The memory explorer and the developer-event views, for people signed in. Everyone in the organization
 * reads; owners and admins change a memory's state, as they review candidates. Each memory is reached by id
 * across environments; search and lists take the environment to look in.
 */
export const memoryExplorerContract = c.router({
  // Listed before `get`, so the fixed paths are matched before `/memory/:id`.
  search: {
    method: "GET",
    path: "/memory/search",
    query: ZMemorySearchQuery,
    responses: { 200: ZSuccess.extend({ ranked: z.boolean(), memories: z.array(ZExplorerMemory), nextCursor: z.string().nullable() }) },
    summary: "Search memories with the retrieval engine, or list them by filter",
  },
  events: {
    method: "GET",
    path: "/memory/events",
    query: ZEnvironmentQuery.extend({
      type: z.string().trim().min(1).max(eventLimits.typeMaxLength).optional(),
      cursor: z.string().max(200).optional(),
      limit: z.coerce.number().int().min(1).max(eventViewLimits.eventsMax).default(eventViewLimits.eventsDefault),
    }).strict(),
    responses: { 200: ZSuccess.extend({ events: z.array(ZDeveloperEvent), nextCursor: z.string().nullable() }) },
    summary: "Recent developer events, newest first",
  },
  workflows: {
    method: "GET",
    path: "/memory/workflows",
    query: ZEnvironmentQuery.extend({
      workflow: z.string().trim().min(1).max(100).optional(),
      limit: z.coerce.number().int().min(1).max(eventViewLimits.workflowsMax).default(eventViewLimits.workflowsDefault),
    }).strict(),
    responses: { 200: ZSuccess.extend({ workflows: z.array(ZWorkflowState) }) },
    summary: "The current state of incidents, deployments, pull requests, tickets and CI runs, most recently changed first",
  },
  get: {
    method: "GET",
    path: "/memory/:id",
    pathParams: ZMemoryParams,
    query: ZHistoryPageQuery,
    responses: { 200: ZSuccess.merge(ZProvenance) },
    summary: "A memory with its provenance and a page of its history",
  },
  reinforce: {
    method: "POST",
    path: "/memory/:id/reinforce",
    pathParams: ZMemoryParams,
    body: ZReasonBody,
    responses: { 200: ZMemoryAnswer },
    summary: "Reinforce a memory (owners and admins)",
  },
  suppress: {
    method: "POST",
    path: "/memory/:id/suppress",
    pathParams: ZMemoryParams,
    body: ZReasonBody,
    responses: { 200: ZMemoryAnswer },
    summary: "Suppress a durable memory: hidden from retrieval until restored (owners and admins)",
  },
  restore: {
    method: "POST",
    path: "/memory/:id/restore",
    pathParams: ZMemoryParams,
    body: ZReasonBody,
    responses: { 200: ZMemoryAnswer },
    summary: "Restore a suppressed memory (owners and admins)",
  },
  tombstone: {
    method: "POST",
    path: "/memory/:id/tombstone",
    pathParams: ZMemoryParams,
    body: ZReasonBody,
    responses: { 200: ZMemoryAnswer },
    summary: "Tombstone a memory: gone from retrieval for good, kept for provenance (owners and admins)",
  },
});
