import { candidateService } from "./domain/candidates";
import { eventIngestion } from "./domain/events/ingestion";
import { memoryService } from "./domain/memories";
import { organizationService } from "./domain/organizations";
import type { Embedder, Store } from "./domain/ports";
import { semanticRetrieval } from "./domain/semantic/semantic-retrieval";
import { RateLimiter } from "./domain/rate-limits/limiter";
import { type RateLimitPolicy, rateLimitPolicy } from "./domain/rate-limits/policy";
import { tokenService } from "./domain/tokens";
import { defaultInferenceConfig, type InferenceConfig, inferenceGateway } from "./gateway/gateway";

export interface ServiceOptions {
  /** The clock memory writes and activation use (defaults to the system clock). */
  now?: () => Date;
  /** How long a verified access token is trusted before the database is asked again (0 disables). */
  authCacheMs?: number;
  /** Semantic retrieval over this embedder, fused with lexical retrieval; lexical alone without one. */
  embeddings?: { embedder: Embedder; minSimilarity: number; onError: (error: unknown, message: string) => void } | null;
  /** The inference gateway's advertised model and upstream (the embedded responder without one). */
  inference?: InferenceConfig;
  /** Requests allowed per window (the documented defaults unless given). */
  rateLimits?: RateLimitPolicy;
  /** Told when the shared rate-limit counters cannot be reached (requests are admitted meanwhile). */
  onRateLimitError?: (error: unknown) => void;
}

/** The domain services, wired over one store. */
export function createServices(store: Store, options: ServiceOptions = {}) {
  const clock = options.now ?? (() => new Date());
  const semantic = options.embeddings ? semanticRetrieval(store, options.embeddings.embedder, { ...options.embeddings, clock }) : null;
  const memories = memoryService(store, { now: clock, semantic });
  return {
    store,
    /** The embeddings writer when semantic retrieval is configured, for its sweeps. */
    embeddings: semantic?.writer ?? null,
    organizations: organizationService(store),
    tokens: tokenService(store, { authCacheMs: options.authCacheMs }),
    memories,
    events: eventIngestion(store, { now: clock }),
    candidates: candidateService(store),
    inference: inferenceGateway({ store, memories, config: options.inference ?? defaultInferenceConfig, now: clock }),
    rateLimiter: new RateLimiter(store.rateLimits, options.rateLimits ?? rateLimitPolicy(), {
      now: () => clock().getTime(),
      onError: options.onRateLimitError,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
