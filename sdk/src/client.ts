import {
  contract,
  type TControlBody,
  type TEncodeBody,
  type TMemory,
  type TProvenance,
  type TRetrieveBody,
  type TRetrieveResponse,
} from "@engram/contract";
import { initClient } from "@ts-rest/core";
import { APIConnectionError, errorFromResponse } from "./errors";

export interface EngramOptions {
  /** Where the Engram server is; defaults to `ENGRAM_BASE_URL`, else `http://localhost:8787`. */
  baseUrl?: string;
  /** An organization access token (`acm_…`); defaults to `ENGRAM_TOKEN`, else `ACM_TOKEN`. */
  token?: string;
  /** Act inside this agent's boundary by default (the agent path forms). */
  agent?: string;
  /** A fetch implementation, e.g. to add a proxy; defaults to the global fetch. */
  fetch?: typeof fetch;
}

type Answer = { status: number; body: unknown; headers: Headers };

/** Returns the body of a success, or throws the typed error of anything else. */
async function unwrap<T>(call: Promise<Answer>): Promise<T> {
  let answer: Answer;
  try {
    answer = await call;
  } catch (error) {
    throw new APIConnectionError(error);
  }
  if (answer.status >= 200 && answer.status < 300) return answer.body as T;
  throw errorFromResponse(answer.status, answer.body, answer.headers);
}

/** The Engram client. `new Engram()` reads its token from the environment. */
export class Engram {
  readonly memory: MemoryResource;
  readonly #options: EngramOptions;

  constructor(options: EngramOptions = {}) {
    const token = options.token ?? process.env.ENGRAM_TOKEN ?? process.env.ACM_TOKEN;
    if (!token) throw new Error("Engram needs a token: pass { token } or set ENGRAM_TOKEN");
    this.#options = { ...options, token };
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const http = initClient(contract, {
      baseUrl: (options.baseUrl ?? process.env.ENGRAM_BASE_URL ?? "http://localhost:8787").replace(/\/+$/, ""),
      baseHeaders: { authorization: `Bearer ${token}` },
      throwOnUnknownStatus: false,
      api: async ({ path, method, headers, body }) => {
        const response = await fetchImpl(path, { method, headers, body });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
      },
    });
    this.memory = new MemoryResource(http, options.agent);
  }

  /** A client like this one that acts inside another agent's boundary. */
  agent(slug: string): Engram {
    return new Engram({ ...this.#options, agent: slug });
  }
}

type Http = ReturnType<typeof initClient<typeof contract, { baseUrl: string; baseHeaders: Record<string, string> }>>;

export class MemoryResource {
  constructor(
    private readonly http: Http,
    private readonly agentSlug: string | undefined,
  ) {}

  /** Encodes a memory. Every call carries an Idempotency-Key (yours, or a new UUID), so it is safe to repeat. */
  async encode(body: TEncodeBody, options: { idempotencyKey?: string } = {}): Promise<TMemory> {
    const headers = { "idempotency-key": options.idempotencyKey ?? crypto.randomUUID() };
    const call = this.agentSlug
      ? this.http.memory.encodeForAgent({ params: { agentSlug: this.agentSlug }, body, headers })
      : this.http.memory.encode({ body, headers });
    return (await unwrap<{ memory: TMemory }>(call)).memory;
  }

  /** Alias of encode. */
  remember(body: TEncodeBody, options?: { idempotencyKey?: string }): Promise<TMemory> {
    return this.encode(body, options);
  }

  retrieve(body: TRetrieveBody): Promise<TRetrieveResponse> {
    return this.retrieveBy("retrieve", body);
  }

  recall(body: TRetrieveBody): Promise<TRetrieveResponse> {
    return this.retrieveBy("recall", body);
  }

  search(body: TRetrieveBody): Promise<TRetrieveResponse> {
    return this.retrieveBy("search", body);
  }

  async reinforce(id: string, body: TControlBody = {}): Promise<TMemory> {
    return this.control("reinforce", id, body);
  }

  async suppress(id: string, body: TControlBody = {}): Promise<TMemory> {
    return this.control("suppress", id, body);
  }

  async restore(id: string, body: TControlBody = {}): Promise<TMemory> {
    return this.control("restore", id, body);
  }

  provenance(id: string): Promise<TProvenance> {
    return unwrap(
      this.agentSlug
        ? this.http.memory.provenanceForAgent({ params: { agentSlug: this.agentSlug, id } })
        : this.http.memory.provenance({ params: { id } }),
    );
  }

  /** Tombstones a memory: removed from retrieval, kept for provenance. */
  async delete(id: string): Promise<TMemory> {
    const call = this.agentSlug
      ? this.http.memory.deleteForAgent({ params: { agentSlug: this.agentSlug, id } })
      : this.http.memory.delete({ params: { id } });
    return (await unwrap<{ memory: TMemory }>(call)).memory;
  }

  /** Alias of delete. */
  tombstone(id: string): Promise<TMemory> {
    return this.delete(id);
  }

  private retrieveBy(route: "retrieve" | "recall" | "search", body: TRetrieveBody): Promise<TRetrieveResponse> {
    return unwrap(
      this.agentSlug
        ? this.http.memory[`${route}ForAgent`]({ params: { agentSlug: this.agentSlug }, body })
        : this.http.memory[route]({ body }),
    );
  }

  private async control(action: "reinforce" | "suppress" | "restore", id: string, body: TControlBody): Promise<TMemory> {
    const call = this.agentSlug
      ? this.http.memory[`${action}ForAgent`]({ params: { agentSlug: this.agentSlug, id }, body })
      : this.http.memory[action]({ params: { id }, body });
    return (await unwrap<{ memory: TMemory }>(call)).memory;
  }
}
