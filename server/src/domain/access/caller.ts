import type { TEnvironment, TScope } from "@engram/contract";
import { AppError } from "../kernel/errors";
import type { MemoryScope } from "../memory/ports";
import type { Plan, WriteMode } from "./records";

/** Who is calling: resolved from the access token, per request. */
export interface Caller {
  orgId: string;
  tokenId: string;
  tokenName: string;
  scopes: readonly TScope[];
  environment: TEnvironment;
  /** Agents the token is limited to; null when it may act for any agent. */
  allowedAgents: readonly string[] | null;
  /** The organization's write mode: direct writes are durable at once, candidate writes await review. */
  writeMode: WriteMode;
  /** The organization's plan, which sets its rate limits. */
  plan: Plan;
  requestId: string;
}

export function requireScope(caller: Caller, scope: TScope): void {
  if (!caller.scopes.includes(scope)) {
    throw new AppError("insufficient_scope", `This token lacks the scope ${scope}, which this operation requires.`);
  }
}

/**
 * The agent a request acts for: the path segment, else the `X-Service-Agent` header. Agent-bound tokens
 * must name one of their agents.
 */
export function resolveAgent(caller: Caller, fromPath: string | undefined, fromHeader: string | undefined): string | null {
  if (fromPath && fromHeader && fromPath !== fromHeader) {
    throw new AppError("agent_conflict", `The path names agent "${fromPath}" but X-Service-Agent names "${fromHeader}".`, "X-Service-Agent");
  }
  const agent = fromPath ?? fromHeader ?? null;
  if (caller.allowedAgents !== null) {
    if (agent === null) {
      throw new AppError("agent_not_allowed", `This token is limited to agents (${caller.allowedAgents.join(", ")}); use an agent path.`);
    }
    if (!caller.allowedAgents.includes(agent)) {
      throw new AppError("agent_not_allowed", `This token may not act for agent "${agent}".`);
    }
  }
  return agent;
}

export function memoryScopeFor(caller: Caller, agent: string | null): MemoryScope {
  return { orgId: caller.orgId, environment: caller.environment, agentSlug: agent };
}
