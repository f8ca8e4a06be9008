import type { SemanticConfig } from "./adapters/openai-embeddings/config";
import { openAiEmbedder } from "./adapters/openai-embeddings/openai-embedder";
import { defaultInferenceConfig, type InferenceConfig } from "./adapters/openai-upstream/config";
import { openAiCompatibleUpstream } from "./adapters/openai-upstream/openai-upstream";
import { tokenService } from "./domain/access/access-tokens";
import { organizationService } from "./domain/access/organizations";
import { organizationAdmin } from "./domain/administration/organization-admin";
import { assistantService } from "./domain/assistants/assistant-service";
import { candidateService } from "./domain/candidates/candidate-review";
import { membershipService } from "./domain/people/memberships";
import { DEFAULT_SESSION_POLICY, type SessionPolicy, sessionService } from "./domain/people/sessions";
import { userService } from "./domain/people/users";
import { metricsService } from "./domain/reflection/metrics/metrics-service";
import { usageCounter } from "./domain/reflection/metrics/usage-counter";
import { reflectionProcesses } from "./domain/reflection/processes";
import { reflectionService } from "./domain/reflection/reflection-service";
import { reflectionRunner } from "./domain/reflection/runner";
import { eventIngestion } from "./domain/events/ingestion";
import { developerEventViews } from "./domain/events/event-views";
import { embeddedResponder } from "./domain/inference/embedded-responder";
import { inferenceGateway } from "./domain/inference/gateway";
import { type Clock, systemClock } from "./domain/kernel/clock";
import { memoryExplorer } from "./domain/memory/memory-explorer";
import { memoryService } from "./domain/memory/memory-service";
import { memoryStateChanges } from "./domain/memory/state-changes";
import { RateLimiter } from "./domain/rate-limits/limiter";
import { type RateLimitPolicy, rateLimitPolicy } from "./domain/rate-limits/policy";
import { memoryRetrieval } from "./domain/retrieval/retrieval";
import { semanticRetrieval } from "./domain/retrieval/semantic/semantic-retrieval";
import type { Peers } from "./domain/kernel/peers";
import type { Store } from "./domain/store";

export interface ServiceOptions {
  /** The clock every service reads the time from (defaults to the system clock). */
  now?: Clock;
  /** How long a verified access token is trusted before the database is asked again (0 disables). */
  authCacheMs?: number;
  /** Semantic retrieval over an OpenAI-compatible embeddings endpoint, fused with lexical retrieval; lexical alone without it. */
  embeddings?: { config: SemanticConfig; onError: (error: unknown, message: string) => void } | null;
  /** The inference gateway's advertised model and upstream (the embedded responder without one). */
  inference?: InferenceConfig;
  /** Requests allowed per window (the documented defaults unless given). */
  rateLimits?: RateLimitPolicy;
  /** Told when the shared rate-limit counters cannot be reached (requests are admitted meanwhile). */
  onRateLimitError?: (error: unknown) => void;
  /** Session lifetimes and sign-in throttling (the documented defaults unless given). */
  sessions?: SessionPolicy;
  /** How long a reflection run's lease lasts without renewal (the default unless given). */
  reflectionLeaseMs?: number;
  /** Told about reflection runs that failed. */
  onReflectionError?: (error: unknown) => void;
  /** The other workers of this `engram serve`, when there are any. */
  peers?: Peers;
}

/** The composition root: the domain services wired over one store, with the upstream and embedder chosen here. */
export function createServices(store: Store, options: ServiceOptions = {}) {
  const clock = options.now ?? systemClock;
  const semantic = semanticOver(store, options.embeddings ?? null, clock);
  // Retrievals are counted per day in memory and written every few seconds (stop() writes the rest).
  const usage = usageCounter(store.dailyUsage, { clock });
  // One retrieval engine (and its statistics caches) for tokens' retrieval and the console's search.
  const retrieval = memoryRetrieval(store, clock, semantic?.search ?? null);
  const memories = memoryService(store, { clock, retrieval, embeddings: semantic?.writer ?? null, onRetrieved: usage.retrieved });
  const inference = options.inference ?? defaultInferenceConfig;
  const upstream = inference.upstream ? openAiCompatibleUpstream(inference.upstream) : embeddedResponder({ clock });
  const organizations = organizationService(store);
  const tokens = tokenService(store, { clock, authCacheMs: options.authCacheMs, peers: options.peers });
  const users = userService(store, { clock });
  const memberships = membershipService(store, { clock });
  const candidates = candidateService(store, { clock });
  const assistants = assistantService(store, { clock });
  const runner = reflectionRunner(store, { clock, processes: reflectionProcesses, leaseMs: options.reflectionLeaseMs, onError: options.onReflectionError });
  return {
    store,
    /** The embeddings writer when semantic retrieval is configured, for its sweeps. */
    embeddings: semantic?.writer ?? null,
    organizations,
    tokens,
    memories,
    events: eventIngestion(store, { clock }),
    candidates,
    explorer: memoryExplorer({ memories: store.memories, events: store.events, retrieve: retrieval, changes: memoryStateChanges(store, clock) }),
    developerEvents: developerEventViews({ events: store.events, workflows: store.workflows }),
    users,
    memberships,
    sessions: sessionService(store, { clock, policy: options.sessions ?? DEFAULT_SESSION_POLICY }),
    assistants,
    administration: organizationAdmin({ organizations, tokens, memberships, users, candidates, agents: store.agents }),
    reflectionRunner: runner,
    reflection: reflectionService(store, { clock, runner, metrics: metricsService({ metrics: store.reflectionMetrics, usage: store.dailyUsage }, { clock }) }),
    usage,
    inference: inferenceGateway({ store, memories, assistants: store.assistants, modelId: inference.modelId, upstream, clock }),
    rateLimiter: new RateLimiter(store.rateLimits, options.rateLimits ?? rateLimitPolicy(), { clock, onError: options.onRateLimitError }),
  };
}

function semanticOver(store: Store, embeddings: ServiceOptions["embeddings"], clock: Clock) {
  if (!embeddings) return null;
  const { config, onError } = embeddings;
  return semanticRetrieval(store, openAiEmbedder(config), { minSimilarity: config.minSimilarity, clock, onError });
}

export type Services = ReturnType<typeof createServices>;
