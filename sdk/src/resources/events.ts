import type { TEventBody, TEventResult } from "@engram/contract";
import type { APIPromise } from "../api-promise";
import { apiCall, type Http } from "../http";
import type { WriteOptions } from "../options";

export interface EventOptions extends WriteOptions {
  /**
   * Send no Idempotency-Key and let Engram derive one from the event's source, type and payload, so the same
   * event delivered twice (a webhook redelivery, two workers) is ingested once. Ignored with `idempotencyKey`.
   */
  deriveIdempotencyKey?: boolean;
}

/** Developer and system events (`POST /v1/memory/events`): deploys, incidents, CI runs, pull requests, tickets. */
export class EventsResource {
  /** @internal Made by the Engram client. */
  constructor(private readonly http: Http) {}

  /**
   * Ingests one event, exactly once: the call carries an Idempotency-Key (yours, or a new UUID made once and
   * reused by its retries) unless `deriveIdempotencyKey` asks Engram to derive it.
   */
  send(body: TEventBody, options: EventOptions = {}): APIPromise<TEventResult> {
    const key = options.idempotencyKey ?? (options.deriveIdempotencyKey ? undefined : crypto.randomUUID());
    const headers = key === undefined ? {} : { "idempotency-key": key };
    return apiCall(this.http.events.ingest({ body, headers, requestOptions: options }));
  }
}
