import { z } from "zod";

/** The capabilities routes' interface version: private application routes, not a stable public contract. */
export const capabilitiesInterfaceVersion = "3.9.0";

/** Organization tiers, lowest first: the plan sets the tier. */
export const ZTier = z.enum(["free", "spark", "seed", "rise", "boost"]);
export type TTier = z.infer<typeof ZTier>;

/** `org_shared` assistants belong to the organization; `employee_personal` ones to one member. */
export const ZAssistantType = z.enum(["org_shared", "employee_personal"]);
export type TAssistantType = z.infer<typeof ZAssistantType>;

/** The registry's assistant-type filter also accepts `organization_wide`, which means `org_shared`. */
export const ZRegistryAssistantType = z.enum(["organization_wide", "org_shared", "employee_personal"]);

/** `organization` capabilities go only to org_shared assistants, `user` ones only to personal ones. */
export const ZCapabilityScope = z.enum(["organization", "user", "both"]);
export type TCapabilityScope = z.infer<typeof ZCapabilityScope>;

export const ZCapabilityId = z.string().min(1).max(64);

export const ZCapabilityEntry = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  scope: ZCapabilityScope,
  requiresConfig: z.boolean(),
  /** Names of the config fields that must be supplied when requiresConfig is true. */
  configFields: z.array(z.string()),
  tierRequirement: ZTier,
  alwaysEnabled: z.boolean(),
});
export type TCapabilityEntry = z.infer<typeof ZCapabilityEntry>;

/** The type a config field's value must have. */
export const ZConfigFieldType = z.enum(["string_list", "integer", "boolean"]);
export type TConfigFieldType = z.infer<typeof ZConfigFieldType>;

export const ZConfigField = z.object({
  name: z.string(),
  type: ZConfigFieldType,
  description: z.string(),
  /** Bounds of an integer field. */
  min: z.number().int().optional(),
  max: z.number().int().optional(),
  /** Bounds of a list field: how many entries, and how long each may be. */
  maxItems: z.number().int().optional(),
  maxItemLength: z.number().int().optional(),
});
export type TConfigField = z.infer<typeof ZConfigField>;

/** One capability's config values, by field name. */
export const ZCapabilityConfig = z.record(z.string().max(64), z.unknown());
export const ZCapabilityConfigs = z.record(ZCapabilityId, ZCapabilityConfig);
export type TCapabilityConfigs = Record<string, Record<string, unknown>>;

export const capabilityLimits = {
  /** The most ids one PATCH may list (the registry is far smaller; the rest would be unknown ids anyway). */
  maxIdsPerUpdate: 100,
} as const;
