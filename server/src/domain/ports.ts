import type { TEnvironment, TMemoryState } from "@engram/contract";
import type {
  HistoryRecord,
  MemoryRecord,
  OrganizationRecord,
  Plan,
  StoredResponse,
  TokenRecord,
  WriteMode,
} from "./records";

/** The narrow storage interfaces the domain depends on; `db/` implements them. */

export interface OrganizationRepository {
  create(input: { name: string; plan: Plan; founderWorkspace: boolean; environmentsEnabled: boolean }): Promise<OrganizationRecord>;
  find(id: string): Promise<OrganizationRecord | null>;
  list(): Promise<OrganizationRecord[]>;
  count(): Promise<number>;
  updateWriteMode(id: string, writeMode: WriteMode): Promise<OrganizationRecord>;
}

export interface NewToken {
  orgId: string;
  name: string;
  tokenHash: string;
  prefix: string;
  scopes: string[];
  environment: TEnvironment | null;
  agentSlugs: string[] | null;
}

export interface TokenRepository {
  create(token: NewToken): Promise<TokenRecord>;
  findActiveByHash(tokenHash: string): Promise<TokenRecord | null>;
  list(orgId: string): Promise<TokenRecord[]>;
  /** Marks the token revoked; false when no such token exists. */
  revoke(id: string, at: Date): Promise<boolean>;
}

export interface AgentRepository {
  /** Registers the agent on its first write; a no-op when it exists. */
  ensure(orgId: string, slug: string): Promise<void>;
}

/** Where a caller may look: one organization and environment, optionally one agent's boundary. */
export interface MemoryScope {
  orgId: string;
  environment: TEnvironment;
  /** When set, only this agent's memories and the organization's shared ones are visible. */
  agentSlug: string | null;
}

export type NewMemory = Omit<MemoryRecord, "id" | "reinforcementCount" | "lastReinforcedAt" | "createdAt" | "updatedAt">;

export interface MemoryRepository {
  create(memory: NewMemory, at: Date): Promise<MemoryRecord>;
  findVisible(scope: MemoryScope, id: string): Promise<MemoryRecord | null>;
  /** Durable memories in scope whose text or subject contains any of the terms, newest first. */
  searchDurable(scope: MemoryScope, terms: readonly string[], maxCandidates: number): Promise<MemoryRecord[]>;
  setState(id: string, state: TMemoryState, at: Date): Promise<MemoryRecord>;
  recordReinforcement(id: string, at: Date): Promise<MemoryRecord>;
  appendHistory(entry: HistoryRecord): Promise<void>;
  history(memoryId: string): Promise<HistoryRecord[]>;
}

export interface IdempotencyKeyScope {
  orgId: string;
  environment: TEnvironment;
  route: string;
  key: string;
}

export interface IdempotencyRepository {
  find(scope: IdempotencyKeyScope, now: Date): Promise<StoredResponse | null>;
  /** Stores the response; throws DuplicateKeyError when a live record holds the key already. */
  save(scope: IdempotencyKeyScope, response: StoredResponse, now: Date, expiresAt: Date): Promise<void>;
  deleteExpired(now: Date): Promise<number>;
}

export interface Repositories {
  organizations: OrganizationRepository;
  tokens: TokenRepository;
  agents: AgentRepository;
  memories: MemoryRepository;
  idempotency: IdempotencyRepository;
}

export interface Store extends Repositories {
  readonly provider: "sqlite" | "postgres";
  /** Runs `work` in one database transaction; everything it writes commits or rolls back together. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
