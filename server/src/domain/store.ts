import type { AgentRepository, OrganizationRepository, TokenRepository } from "./access/ports";
import type { AssistantRepository } from "./assistants/ports";
import type { LoginThrottleRepository, MembershipRepository, SessionRepository, UserRepository } from "./people/ports";
import type { DailyUsageRepository, ReflectionMetricsRepository } from "./reflection/metrics/ports";
import type { WaitMeter } from "./kernel/wait-meter";
import type { ReflectionEventRepository, ReflectionMemoryStore, ReflectionRunRepository, ReflectionSettingsRepository } from "./reflection/ports";
import type { EventRepository, WorkflowRepository } from "./events/ports";
import type { MemoryRepository } from "./memory/ports";
import type { RateLimitRepository } from "./rate-limits/ports";
import type { EmbeddingRepository, MemorySearch } from "./retrieval/ports";
import type { IdempotencyRepository, WriteBatch } from "./writes/ports";

/** The storage ports of every feature, together; `db/` implements them. */
export interface Repositories {
  organizations: OrganizationRepository;
  tokens: TokenRepository;
  agents: AgentRepository;
  memories: MemoryRepository & MemorySearch;
  embeddings: EmbeddingRepository;
  idempotency: IdempotencyRepository;
  events: EventRepository;
  workflows: WorkflowRepository;
  rateLimits: RateLimitRepository;
  users: UserRepository;
  memberships: MembershipRepository;
  sessions: SessionRepository;
  loginThrottle: LoginThrottleRepository;
  assistants: AssistantRepository;
  reflectionRuns: ReflectionRunRepository;
  reflectionEvents: ReflectionEventRepository;
  reflectionSettings: ReflectionSettingsRepository;
  reflectionMetrics: ReflectionMetricsRepository;
  dailyUsage: DailyUsageRepository;
}

export interface Store extends Repositories {
  /** Commits everything `build` queues in one transaction of multi-row statements, one per table. */
  writeAtomically(build: (batch: WriteBatch) => void): Promise<void>;
  readonly provider: "sqlite" | "postgres";
  /** Runs `work` in one database transaction; everything it writes commits or rolls back together. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Reflection's memories; its waits off the event loop, when `waits` is given, timed on it. */
  reflection(waits?: WaitMeter): ReflectionMemoryStore;
  ping(): Promise<void>;
  close(): Promise<void>;
}
