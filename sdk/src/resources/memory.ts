import type { TControlBody, TEncodeBody, THistoryPageQuery, TMemory, TProvenance, TRetrieveBody, TRetrieveResponse } from "@engram/contract";
import type { APIPromise } from "../core/api-promise";
import type { RequestOptions, WriteOptions } from "../core/options";
import { apiCall, type Http } from "../internal/http";

type ControlAction = "reinforce" | "suppress" | "restore";
type RetrieveRoute = "retrieve" | "recall" | "search";

/**
 * Memory routes (`/v1/memory`), named by the memory model's verbs with their aliases. With an agent, every call uses
 * the agent path form and stays inside that agent's boundary.
 */
export class MemoryResource {
  /** @internal Made by the Engram client. */
  constructor(
    private readonly http: Http,
    private readonly agentSlug: string | undefined,
  ) {}

  /** Encodes a memory. Every call carries an Idempotency-Key (yours, or a new UUID), so retrying it is safe. */
  encode(body: TEncodeBody, options: WriteOptions = {}): APIPromise<TMemory> {
    // Made once per call, here, so that every retry of it sends the same key.
    const headers = { "idempotency-key": options.idempotencyKey ?? crypto.randomUUID() };
    const call = this.agentSlug
      ? this.http.memory.encodeForAgent({ params: { agentSlug: this.agentSlug }, body, headers, requestOptions: options })
      : this.http.memory.encode({ body, headers, requestOptions: options });
    return apiCall(call).map((result) => result.memory);
  }

  /** Alias of encode. */
  remember(body: TEncodeBody, options?: WriteOptions): APIPromise<TMemory> {
    return this.encode(body, options);
  }

  /** Durable memories ranked for a query; with `includeContext`, also a context block for your own model. */
  retrieve(body: TRetrieveBody, options?: RequestOptions): APIPromise<TRetrieveResponse> {
    return this.retrieveThrough("retrieve", body, options);
  }

  /** Alias of retrieve (`/recall`). */
  recall(body: TRetrieveBody, options?: RequestOptions): APIPromise<TRetrieveResponse> {
    return this.retrieveThrough("recall", body, options);
  }

  /** Alias of retrieve (`/search`). */
  search(body: TRetrieveBody, options?: RequestOptions): APIPromise<TRetrieveResponse> {
    return this.retrieveThrough("search", body, options);
  }

  /** Marks a memory useful: a use that raises its activation. Its state is unchanged. */
  reinforce(id: string, body: TControlBody = {}, options?: RequestOptions): APIPromise<TMemory> {
    return this.control("reinforce", id, body, options);
  }

  /** Hides a durable memory from retrieval (stale or unsafe). */
  suppress(id: string, body: TControlBody = {}, options?: RequestOptions): APIPromise<TMemory> {
    return this.control("suppress", id, body, options);
  }

  /** Brings a suppressed memory back to durable. */
  restore(id: string, body: TControlBody = {}, options?: RequestOptions): APIPromise<TMemory> {
    return this.control("restore", id, body, options);
  }

  /**
   * Where a memory came from and everything that happened to it since, oldest first, a page of at most 500
   * entries at a time: pass the answer's `nextHistoryCursor` as `historyCursor` for the next (see `historyPages`).
   */
  provenance(id: string, page: THistoryPageQuery = {}, options?: RequestOptions): APIPromise<TProvenance> {
    return apiCall(
      this.agentSlug
        ? this.http.memory.provenanceForAgent({ params: { agentSlug: this.agentSlug, id }, query: page, requestOptions: options })
        : this.http.memory.provenance({ params: { id }, query: page, requestOptions: options }),
    );
  }

  /** A memory's whole history, oldest first, read a page at a time as it is iterated. */
  async *historyPages(id: string, page: Omit<THistoryPageQuery, "historyCursor"> = {}, options?: RequestOptions): AsyncGenerator<TProvenance["history"]> {
    for (let historyCursor: string | undefined; ; ) {
      const answer = await this.provenance(id, { ...page, historyCursor }, options);
      yield answer.history;
      if (answer.nextHistoryCursor === null) return;
      historyCursor = answer.nextHistoryCursor;
    }
  }

  /** Tombstones a memory: removed from retrieval, kept for provenance. Deleting again is harmless. */
  delete(id: string, options?: RequestOptions): APIPromise<TMemory> {
    const call = this.agentSlug
      ? this.http.memory.deleteForAgent({ params: { agentSlug: this.agentSlug, id }, requestOptions: options })
      : this.http.memory.delete({ params: { id }, requestOptions: options });
    return apiCall(call).map((result) => result.memory);
  }

  /** Alias of delete. */
  tombstone(id: string, options?: RequestOptions): APIPromise<TMemory> {
    return this.delete(id, options);
  }

  private retrieveThrough(route: RetrieveRoute, body: TRetrieveBody, options: RequestOptions | undefined): APIPromise<TRetrieveResponse> {
    return apiCall(
      this.agentSlug
        ? this.http.memory[`${route}ForAgent`]({ params: { agentSlug: this.agentSlug }, body, requestOptions: options })
        : this.http.memory[route]({ body, requestOptions: options }),
    );
  }

  private control(action: ControlAction, id: string, body: TControlBody, options: RequestOptions | undefined): APIPromise<TMemory> {
    const call = this.agentSlug
      ? this.http.memory[`${action}ForAgent`]({ params: { agentSlug: this.agentSlug, id }, body, requestOptions: options })
      : this.http.memory[action]({ params: { id }, body, requestOptions: options });
    return apiCall(call).map((result) => result.memory);
  }
}
