import { randomUUID } from "node:crypto";

/** Identifiers are a type prefix and 32 hex digits, e.g. `mem_0f3c…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}
