import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZIsoDate } from "../common";
import {
  capabilityLimits,
  ZAssistantType,
  ZCapabilityConfigs,
  ZCapabilityEntry,
  ZCapabilityId,
  ZCapabilityScope,
  ZConfigField,
  ZRegistryAssistantType,
  ZTier,
} from "./capabilities";
import { pageQuery } from "./paging";
import { ZSuccess } from "./responses";

/** An assistant as the capabilities routes show it. */
export const ZAssistant = z.object({
  _id: z.string(),
  name: z.string(),
  type: ZAssistantType,
  capabilities: z.array(z.string()),
  capabilityConfigs: ZCapabilityConfigs,
});
export type TAssistant = z.infer<typeof ZAssistant>;

/** The same, with who owns it and its version (also its ETag), as the assistant routes show it. */
export const ZAssistantDetail = ZAssistant.extend({
  ownerUserId: z.string().nullable(),
  version: z.number().int(),
  createdAt: ZIsoDate,
  updatedAt: ZIsoDate,
});

export const ZAssistantChange = z.object({
  id: z.string(),
  action: z.enum(["created", "renamed", "capabilities_changed", "deleted"]),
  actor: z.string(),
  actorUserId: z.string().nullable(),
  before: z.record(z.unknown()).nullable(),
  after: z.record(z.unknown()),
  version: z.number().int(),
  createdAt: ZIsoDate,
});

const ZAssistantParams = z.object({ assistantId: z.string().min(1).max(100) });

/**
 * Changes a page: each may hold the assistant's configs before and after, up to about 90 KB of JSON each, so a
 * page of 20 stays a few megabytes.
 */
export const assistantChangeLimits = { defaultLimit: 20, maxLimit: 20 } as const;

/** Assistants a page: each may carry about 90 KB of settings as JSON, and an organization may have any number. */
export const assistantListLimits = { defaultLimit: 20, maxLimit: 20 } as const;
/** `If-Match: "<version>"` makes a change conditional on the version read (the ETag of the GET routes). */
const ZIfMatchHeaders = z.object({ "if-match": z.string().max(100).optional() });
const ZAssistantName = z.string().max(100);

const c = initContract();

export const assistantsContract = c.router({
  list: {
    method: "GET",
    path: "/assistants",
    query: pageQuery(assistantListLimits.maxLimit),
    responses: { 200: ZSuccess.extend({ assistants: z.array(ZAssistantDetail), nextCursor: z.string().nullable() }) },
    summary: "Assistants you can see, oldest first, a page at a time",
  },
  get: {
    method: "GET",
    path: "/assistants/:assistantId",
    pathParams: ZAssistantParams,
    responses: { 200: ZSuccess.extend({ assistant: ZAssistantDetail }) },
    summary: "One assistant you can see, with an ETag of its version",
  },
  create: {
    method: "POST",
    path: "/assistants",
    body: z.object({ name: ZAssistantName, type: ZAssistantType }).strict(),
    responses: { 201: ZSuccess.extend({ assistant: ZAssistantDetail }) },
    summary: "Create an assistant (org_shared: owners and admins; employee_personal: your own)",
  },
  rename: {
    method: "PATCH",
    path: "/assistants/:assistantId",
    pathParams: ZAssistantParams,
    headers: ZIfMatchHeaders,
    body: z.object({ name: ZAssistantName }).strict(),
    responses: { 200: ZSuccess.extend({ assistant: ZAssistantDetail }) },
    summary: "Rename an assistant",
  },
  delete: {
    method: "DELETE",
    path: "/assistants/:assistantId",
    pathParams: ZAssistantParams,
    headers: ZIfMatchHeaders,
    body: z.object({}).strict().optional(),
    responses: { 200: ZSuccess },
    summary: "Delete an assistant (its change log is kept)",
  },
  changes: {
    method: "GET",
    path: "/assistants/:assistantId/changes",
    pathParams: ZAssistantParams,
    // The cursor is the version of the last change the previous page listed.
    query: pageQuery(assistantChangeLimits.maxLimit, z.string().regex(/^[1-9][0-9]{0,9}$/, "must be a cursor from a previous page")),
    responses: { 200: ZSuccess.extend({ changes: z.array(ZAssistantChange), nextCursor: z.string().nullable() }) },
    summary: "Who changed the assistant, what before and after, and when (newest first), a page at a time",
  },
});

export const capabilitiesContract = c.router({
  registry: {
    method: "GET",
    path: "/capabilities/registry",
    query: z.object({ assistantType: ZRegistryAssistantType.optional(), category: z.string().max(100).optional() }).strict(),
    responses: {
      200: ZSuccess.extend({
        capabilities: z.array(ZCapabilityEntry),
        grouped: z.record(ZCapabilityScope, z.array(ZCapabilityEntry)),
        total: z.number().int(),
      }),
    },
    summary: "The capability registry, optionally filtered by assistant type and category",
  },
  capability: {
    method: "GET",
    path: "/capabilities/registry/:capabilityId",
    pathParams: z.object({ capabilityId: z.string().min(1).max(100) }),
    responses: { 200: ZSuccess.extend({ capability: ZCapabilityEntry, configFields: z.array(ZConfigField) }) },
    summary: "One capability, with the type and bounds of each config field",
  },
  assistantCapabilities: {
    method: "GET",
    path: "/assistants/:assistantId/capabilities",
    pathParams: ZAssistantParams,
    responses: {
      200: ZSuccess.extend({ capabilities: z.array(z.string()), capabilityCount: z.number().int(), capabilityConfigs: ZCapabilityConfigs }),
    },
    summary: "The assistant's enabled capabilities (ETag: its version)",
  },
  availableCapabilities: {
    method: "GET",
    path: "/assistants/:assistantId/available-capabilities",
    pathParams: ZAssistantParams,
    responses: {
      200: ZSuccess.extend({
        capabilities: z.array(ZCapabilityEntry),
        grouped: z.record(z.string(), z.array(ZCapabilityEntry)),
        organizationTier: ZTier,
        currentCapabilities: z.array(z.string()),
        /** The tier's maximum; for Boost, which has none, the size of the registry. */
        capabilityLimit: z.number().int(),
      }),
    },
    summary: "What may be enabled on the assistant at the organization's tier",
  },
  updateCapabilities: {
    method: "PATCH",
    path: "/assistants/:assistantId/capabilities",
    pathParams: ZAssistantParams,
    headers: ZIfMatchHeaders,
    body: z
      .object({
        capabilities: z.array(ZCapabilityId).max(capabilityLimits.maxIdsPerUpdate),
        capabilityConfigs: ZCapabilityConfigs.default({}),
      })
      .strict(),
    responses: { 200: ZSuccess.extend({ assistant: ZAssistant, message: z.string() }) },
    summary: "Set the enabled capabilities and their configs (new messages only)",
  },
});
