import { z } from "zod";

/** The version of the published memory, inference and event interface. */
export const interfaceVersion = "3.12.3";

export const ZEnvironment = z.enum(["test", "staging", "production"]);
export type TEnvironment = z.infer<typeof ZEnvironment>;

/** Scopes a token can carry. */
export const ZScope = z.enum([
  "memory:read",
  "memory:write",
  "memory:control",
  "memory:delete",
  "inference:chat",
  "knowledge:read",
  "insights:read",
  "actions:request",
]);
export type TScope = z.infer<typeof ZScope>;
export const memoryScopes = ["memory:read", "memory:write", "memory:control", "memory:delete"] as const;

/** Agent slugs: lower-case letters, digits and dashes, starting with a letter or digit. */
export const ZAgentSlug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "must be 1-63 lower-case letters, digits or dashes, starting with a letter or digit");

export const ZIsoDate = z.string().datetime({ offset: true });

/** The optional `Idempotency-Key` header of the write routes (encode and event ingestion). */
export const ZIdempotencyHeaders = z.object({ "idempotency-key": z.string().min(1).max(255).optional() });
