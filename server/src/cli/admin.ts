import { ZEnvironment, memoryScopes } from "@engram/contract";
import { noSuchOrganization } from "../domain/access/organizations";
import { type Plan, plans, type WriteMode } from "../domain/access/records";
import type { Services } from "../services";
import { list, required, UsageError } from "./usage";

/** Parsed command-line options shared by the admin commands. */
export interface AdminOptions {
  name?: string;
  plan?: string;
  founder?: boolean;
  "no-environments"?: boolean;
  org?: string;
  scopes?: string;
  environment?: string;
  agents?: string;
  reason?: string;
  actor?: string;
  email?: string;
  password?: string;
  role?: string;
  type?: string;
  owner?: string;
}

export function environmentOption(value: string | undefined, fallback: "production" | null) {
  if (value === undefined) return fallback;
  const parsed = ZEnvironment.safeParse(value);
  if (!parsed.success) throw new UsageError("--environment must be test, staging or production");
  return parsed.data;
}

/** What an admin command works with: the services, and where its output lines go. */
export interface AdminContext {
  services: Services;
  out(line: string): void;
}

/** The `--org` of a command that reads an organization: one that does not exist is told so, not shown as empty. */
export async function existingOrg({ services }: AdminContext, options: AdminOptions): Promise<string> {
  const orgId = required(options.org, "--org");
  if (!(await services.organizations.find(orgId))) throw noSuchOrganization(orgId);
  return orgId;
}

export async function createOrg({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const plan = options.plan ?? "free";
  if (!plans.includes(plan as Plan)) throw new UsageError(`--plan must be one of ${plans.join(", ")}`);
  const org = await services.organizations.create({
    name: required(options.name, "--name"),
    plan: plan as Plan,
    founderWorkspace: Boolean(options.founder),
    environmentsEnabled: !options["no-environments"],
  });
  out(`created organization ${org.id} (${org.name}, plan ${org.plan})`);
}

export async function listOrgs({ services, out }: AdminContext): Promise<void> {
  for (const org of await services.organizations.list()) {
    out(`${org.id}\t${org.name}\tplan=${org.plan}\twriteMode=${org.writeMode}${org.founderWorkspace ? "\tfounder" : ""}`);
  }
}

export async function setWriteMode({ services, out }: AdminContext, orgId: string | undefined, mode: string | undefined): Promise<void> {
  const org = await services.organizations.setWriteMode(required(orgId, "ORG_ID"), required(mode, "direct|candidate") as WriteMode);
  out(`organization ${org.id} now uses ${org.writeMode} write mode`);
}

export async function createToken({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const { token, record } = await services.tokens.create({
    orgId: required(options.org, "--org"),
    name: required(options.name, "--name"),
    scopes: list(options.scopes) ?? [...memoryScopes],
    environment: environmentOption(options.environment, "production"),
    agentSlugs: list(options.agents),
  });
  out(`created token ${record.id} (${record.environment}; ${record.scopes.join(" ")}${record.agentSlugs ? `; agents ${record.agentSlugs.join(",")}` : ""})`);
  out("It is shown only this once:");
  out(token);
}

export async function listTokens(context: AdminContext, options: AdminOptions): Promise<void> {
  const { services, out } = context;
  for (const token of await services.tokens.list(await existingOrg(context, options))) {
    const state = token.revokedAt ? `revoked ${token.revokedAt.toISOString()}` : "active";
    const agents = token.agentSlugs ? `\tagents=${token.agentSlugs.join(",")}` : "";
    out(`${token.id}\t${token.prefix}…\t${token.name}\t${token.environment ?? "unbound"}\t${token.scopes.join(" ")}\t${state}${agents}`);
  }
}

export async function revokeToken({ services, out }: AdminContext, tokenId: string | undefined): Promise<void> {
  const id = required(tokenId, "TOKEN_ID");
  if (!(await services.tokens.revoke(id))) throw new UsageError(`no token ${id}`);
  out(`revoked ${id}`);
}

export async function listCandidates(context: AdminContext, options: AdminOptions): Promise<void> {
  const { services, out } = context;
  const candidates = await services.candidates.list(await existingOrg(context, options), environmentOption(options.environment, null));
  for (const memory of candidates) {
    out(`${memory.id}\t${memory.environment}\t${memory.memoryKind}\t${memory.confidence}\t${memory.subject ?? "-"}\t${memory.text.slice(0, 80)}`);
  }
  if (candidates.length === 0) out("no candidates awaiting review");
}

export async function reviewCandidate({ services, out }: AdminContext, decision: "promote" | "reject", memoryId: string | undefined, options: AdminOptions): Promise<void> {
  const memory = await services.candidates[decision](required(memoryId, "MEMORY_ID"), { actor: options.actor ?? "admin:cli", reason: options.reason });
  out(`${decision === "promote" ? "promoted" : "rejected"} ${memory.id}: now ${memory.state}`);
}

export async function eventStats(context: AdminContext, options: AdminOptions): Promise<void> {
  const { services, out } = context;
  for (const row of await services.events.countByType(await existingOrg(context, options))) {
    out(`${row.environment}\t${row.type}\t${row.known ? "known" : "unknown type"}\t${row.count}`);
  }
}

export async function listWorkflows(context: AdminContext, options: AdminOptions): Promise<void> {
  const { services, out } = context;
  const states = await services.events.workflows(await existingOrg(context, options), environmentOption(options.environment, "production")!);
  for (const state of states) {
    const track = state.track ? `@${state.track}` : "";
    out(`${state.workflow}\t${state.subject}${track}\t${state.state}\t${JSON.stringify(state.details)}\t${state.updatedAt.toISOString()}`);
  }
}
