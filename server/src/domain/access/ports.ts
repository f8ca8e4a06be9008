import type { TEnvironment } from "@engram/contract";
import type { OrganizationRecord, Plan, TokenRecord, WriteMode } from "./records";

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
  /** The live token with this hash and the organization settings every request needs, in one read. */
  findActiveByHash(tokenHash: string): Promise<{ token: TokenRecord; org: Pick<OrganizationRecord, "environmentsEnabled" | "writeMode" | "plan"> } | null>;
  list(orgId: string): Promise<TokenRecord[]>;
  /** Marks the token revoked; false when no such token exists. */
  revoke(id: string, at: Date): Promise<boolean>;
}
