import type { TEnvironment } from "@engram/contract";
import type { ListPage } from "../kernel/page-cursor";
import type { AgentRecord, OrganizationRecord, Plan, TokenRecord, WriteMode } from "./records";

export interface OrganizationRepository {
  create(input: { name: string; plan: Plan; founderWorkspace: boolean; environmentsEnabled: boolean }): Promise<OrganizationRecord>;
  find(id: string): Promise<OrganizationRecord | null>;
  list(): Promise<OrganizationRecord[]>;
  count(): Promise<number>;
  updateWriteMode(id: string, writeMode: WriteMode): Promise<OrganizationRecord>;
  rename(id: string, name: string): Promise<OrganizationRecord>;
  /** Takes the organization's row lock until the transaction ends, so changes to its members run one at a time. */
  lock(id: string): Promise<void>;
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
  /** The live token with this hash and the organization settings every request needs, in one read. */
  findActiveByHash(tokenHash: string): Promise<{ token: TokenRecord; org: Pick<OrganizationRecord, "environmentsEnabled" | "writeMode" | "plan"> } | null>;
  /** The organization's tokens, oldest first; with `page`, those after its position, at most its limit. */
  list(orgId: string, page?: ListPage): Promise<TokenRecord[]>;
  /** Marks the token revoked; false when no such token exists (in the organization, when one is given). */
  revoke(id: string, at: Date, orgId?: string): Promise<boolean>;
}

export interface AgentRepository {
  /** The organization's agents by slug, starting after `after` (from the first without it), at most `limit`. */
  list(orgId: string, page: { after: string | null; limit: number }): Promise<AgentRecord[]>;
}
