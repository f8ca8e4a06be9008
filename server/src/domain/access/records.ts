import { type TEnvironment, type TScope, type TTier, ZTier } from "@engram/contract";

/** Plain records of organizations and access tokens; repositories translate to and from storage rows. */

/** An organization's plan is its tier, lowest first. */
export const plans = ZTier.options;
export type Plan = TTier;
export type WriteMode = "direct" | "candidate";

export interface OrganizationRecord {
  id: string;
  name: string;
  plan: Plan;
  founderWorkspace: boolean;
  writeMode: WriteMode;
  environmentsEnabled: boolean;
  createdAt: Date;
}

export interface TokenRecord {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  scopes: TScope[];
  environment: TEnvironment | null;
  /** Agents the token is limited to; null when it may act for any agent. */
  agentSlugs: string[] | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** An agent, registered in its organization by the first memory written for it. */
export interface AgentRecord {
  slug: string;
  createdAt: Date;
}
