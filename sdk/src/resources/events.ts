import type { TEventBody, TEventResult } from "@engram/contract";
import type { APIPromise } from "../core/api-promise";
import type { RequestOptions } from "../core/options";
import { apiCall, type Http } from "../internal/http";

export interface EventOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key` when the sender has an id of its own for the event (a CI run id, a webhook
   * delivery id). Without it none is sent and Engram derives the key from the event's source, type and payload.
   * Either way the key is unique for as long as the event is stored: a resend at any later time is a replay.
   */
  idempotencyKey?: string;
  /** @deprecated Deriving the key is now the default; this option has no effect. */
  deriveIdempotencyKey?: boolean;
}

/** Developer and system events (`POST /v1/memory/events`): deploys, incidents, CI runs, pull requests, tickets. */
export class EventsResource {
  /** @internal Made by the Engram client. */
  constructor(private readonly http: Http) {}

  /**
   * Ingests one event, exactly once. By default no Idempotency-Key is sent, so the same event delivered twice
   * (a webhook redelivery, two workers, a retry of this call) is one event; pass `idempotencyKey` to use yours.
   */
  send(body: TEventBody, options: EventOptions = {}): APIPromise<TEventResult> {
    const headers = options.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey };
    return apiCall(this.http.events.ingest({ body, headers, requestOptions: options }));
  }
}
