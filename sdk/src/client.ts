import type { THealth } from "@engram/contract";
import type { APIPromise } from "./core/api-promise";
import { EngramError } from "./core/errors";
import { defaults, type EngramOptions, type RequestOptions } from "./core/options";
import { fromEnvironment } from "./internal/env";
import { apiCall, createHttp, type Http } from "./internal/http";
import { Chat } from "./resources/chat";
import { EventsResource } from "./resources/events";
import { MemoryResource } from "./resources/memory";
import { Models } from "./resources/models";

/**
 * The Engram client. `new Engram()` reads its token from `ENGRAM_TOKEN` (or `ACM_TOKEN`) and its address from
 * `ENGRAM_BASE_URL`.
 */
export class Engram {
  /** Encode, retrieve and manage memories. */
  readonly memory: MemoryResource;
  /** Send developer and system events. */
  readonly events: EventsResource;
  /** Chat completions grounded in memory (the OpenAI-compatible gateway). */
  readonly chat: Chat;
  /** The models the gateway advertises. */
  readonly models: Models;
  readonly #options: EngramOptions;
  readonly #http: Http;

  constructor(options: EngramOptions = {}) {
    const token = options.token ?? fromEnvironment("ENGRAM_TOKEN") ?? fromEnvironment("ACM_TOKEN");
    if (!token) throw new EngramError("Engram needs a token: pass { token } or set ENGRAM_TOKEN");
    const maxRetries = options.maxRetries ?? defaults.maxRetries;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new EngramError(`maxRetries must be a whole number, 0 or more; got ${maxRetries}`);
    const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
    if (!(timeoutMs > 0)) throw new EngramError(`timeoutMs must be a positive number of milliseconds; got ${timeoutMs}`);
    const baseUrl = (options.baseUrl ?? fromEnvironment("ENGRAM_BASE_URL") ?? defaults.baseUrl).replace(/\/+$/, "");
    this.#options = { ...options, token, baseUrl };

    // Looked up per call, so a fetch replaced after construction (instrumentation, test servers) is used.
    const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#http = createHttp(baseUrl, token, { fetch, maxRetries, timeoutMs });
    this.memory = new MemoryResource(this.#http, options.agent);
    this.events = new EventsResource(this.#http);
    this.chat = new Chat(this.#http, options.agent);
    this.models = new Models(this.#http);
  }

  /** Whether the server, its database and its model answer (the route checks no token); a 503 answers too. */
  health(options?: RequestOptions): APIPromise<THealth> {
    return apiCall(this.#http.health.check({ requestOptions: options, answerStatuses: [503] }));
  }

  /** A client like this one that acts inside another agent's boundary. */
  agent(slug: string): Engram {
    return new Engram({ ...this.#options, agent: slug });
  }
}
