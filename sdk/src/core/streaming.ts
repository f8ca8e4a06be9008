import { createParser, type EventSourceMessage } from "eventsource-parser";
import { APIConnectionError, APIError, APIUserAbortError, EngramError } from "./errors";
import type { OpenAnswer } from "../internal/transport";

/**
 * A Server-Sent Events answer (`data: <json>` events ending with `data: [DONE]`) read as an async iterable of
 * its JSON events. Leaving the loop early (break, return, a throw) closes the connection, so the server stops
 * generating; an error event from the server is thrown as an APIError. A stream can be read once.
 */
export class Stream<T> implements AsyncIterable<T> {
  /** Aborting it closes the connection, ending the loop reading the stream. */
  readonly controller: AbortController;
  readonly #response: Response;
  #read = false;

  constructor({ response, controller }: OpenAnswer) {
    this.#response = response;
    this.controller = controller;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#read) throw new EngramError("This stream has already been read");
    this.#read = true;
    const body = this.#response.body;
    if (!body) throw new APIConnectionError({ message: "The streamed answer has no body" });

    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await this.#next(reader);
        if (done) throw new APIConnectionError({ message: "The stream ended before data: [DONE]" });
        parser.feed(decoder.decode(value, { stream: true }));
        for (const event of events.splice(0)) {
          if (event.data === "[DONE]") return;
          yield this.#parse(event.data);
        }
      }
    } finally {
      // Finished, broken out of or failed: either way nothing more is read, so let the connection go.
      this.controller.abort();
    }
  }

  async #next(reader: ReadableStreamDefaultReader<Uint8Array>) {
    try {
      return await reader.read();
    } catch (cause) {
      // While reading, only the caller's signal aborts the controller.
      if (this.controller.signal.aborted) throw new APIUserAbortError();
      throw new APIConnectionError({ message: "The stream was cut off", cause });
    }
  }

  #parse(data: string): T {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      throw new APIError(undefined, undefined, this.#response.headers, `Engram sent a stream event that is not JSON: ${data.slice(0, 200)}`);
    }
    if (typeof event === "object" && event !== null && "error" in event) throw new APIError(undefined, event, this.#response.headers);
    return event as T;
  }
}
