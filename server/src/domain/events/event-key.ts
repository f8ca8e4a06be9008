import { createHash } from "node:crypto";
import { requestHash } from "../writes/idempotency";
import type { EventInput } from "./records";

/** The payload as it is hashed: key order and JSON whitespace never matter (`requestHash` is canonical). */
export function eventRequestHash(input: EventInput): string {
  return requestHash({ type: input.type, text: input.text, source: input.source, subject: input.subject, metadata: input.metadata });
}

/**
 * The key of an event sent without Idempotency-Key: its source, its type and a hash of the
 * normalized payload (`payloadHash`, its `eventRequestHash`), so a retried delivery of the same event resolves
 * to the first one.
 */
export function derivedEventKey(input: EventInput, payloadHash: string): string {
  const digest = createHash("sha256").update(payloadHash).digest("hex").slice(0, 32);
  return `derived:${input.source ?? "unknown"}:${input.type}:${digest}`;
}
