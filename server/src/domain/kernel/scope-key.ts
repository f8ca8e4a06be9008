import type { TEnvironment } from "@engram/contract";

/**
 * The one key string for maps and caches per organization and environment, optionally narrowed by more
 * parts; NUL separates the parts, as no identifier or slug may contain it.
 */
export function scopeKey(scope: { orgId: string; environment: TEnvironment }, ...parts: string[]): string {
  return [scope.orgId, scope.environment, ...parts].join("\u0000");
}
