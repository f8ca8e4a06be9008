import type { Store } from "../store";
import type { KeyLedger } from "../writes/idempotent-batch";
import type { BusinessEventRecord } from "./records";
import { eventAnswer } from "./event-answer";
import { eventRequestHash } from "./event-key";

/** The payload a stored event was ingested with: what its key's request hash covers. */
function storedInput(event: BusinessEventRecord) {
  return { type: event.type, text: event.text, source: event.source ?? undefined, subject: event.subject ?? undefined, metadata: event.metadata ?? undefined };
}

/**
 * Event keys live on the events themselves, unique per organization and environment for as long as the event
 * is stored: a resend at any later time repeats the first answer. The request hash is computed from the stored
 * row, so a key can only ever match the payload that was really stored.
 */
export function eventKeys(store: Store): KeyLedger {
  return {
    async find(scope, keys) {
      const stored = await store.events.findByKeys(scope, keys);
      const answers = stored.map(({ event, answer, candidateIds }) => [
        event.idempotencyKey,
        { requestHash: eventRequestHash(storedInput(event)), status: 201, body: answer ?? eventAnswer(event, candidateIds, []) },
      ] as const);
      return { answers: new Map(answers) };
    },
    // The event's own row claims its key: the database refuses a second row under it (DuplicateKeyError).
    claim() {},
  };
}
