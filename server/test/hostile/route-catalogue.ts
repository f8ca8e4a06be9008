import { DEFAULT_MODEL_ID } from "@engram/contract";

/** A route as a client calls it: `{id}` and `{agent}` are filled in per test. */
export interface CataloguedRoute {
  name: string;
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** A body the route accepts (for POST routes); hostile variants are built from it. */
  validBody?: Record<string, unknown>;
  /** The string fields of validBody, where unicode edge cases are planted. */
  stringFields?: string[];
}

const AGENT = "hostile-agent";

const retrieveBody = { query: "deploy payments", limit: 5, includeContext: true };
const controlBody = { reason: "checked by hand", actor: "reviewer" };
const chatBody = { model: DEFAULT_MODEL_ID, messages: [{ role: "user", content: "How do we deploy payments?" }] };

/** Every authenticated route of the contract, each path form and alias. */
export const routes: CataloguedRoute[] = [
  { name: "encode", method: "POST", path: "/v1/memory", validBody: { text: "A memory.", subject: "svc" }, stringFields: ["text", "subject"] },
  { name: "encodeForAgent", method: "POST", path: `/v1/memory/agents/${AGENT}`, validBody: { text: "A memory.", subject: "svc" }, stringFields: ["text", "subject"] },
  ...["retrieve", "recall", "search"].flatMap((verb): CataloguedRoute[] => [
    { name: verb, method: "POST", path: `/v1/memory/${verb}`, validBody: retrieveBody, stringFields: ["query"] },
    { name: `${verb}ForAgent`, method: "POST", path: `/v1/memory/agents/${AGENT}/${verb}`, validBody: retrieveBody, stringFields: ["query"] },
  ]),
  ...["reinforce", "suppress", "restore"].flatMap((verb): CataloguedRoute[] => [
    { name: verb, method: "POST", path: `/v1/memory/{id}/${verb}`, validBody: controlBody, stringFields: ["reason", "actor"] },
    { name: `${verb}ForAgent`, method: "POST", path: `/v1/memory/agents/${AGENT}/{id}/${verb}`, validBody: controlBody, stringFields: ["reason", "actor"] },
  ]),
  { name: "provenance", method: "GET", path: "/v1/memory/{id}/provenance" },
  { name: "provenanceForAgent", method: "GET", path: `/v1/memory/agents/${AGENT}/{id}/provenance` },
  { name: "delete", method: "DELETE", path: "/v1/memory/{id}" },
  { name: "deleteForAgent", method: "DELETE", path: `/v1/memory/agents/${AGENT}/{id}` },
  {
    name: "events",
    method: "POST",
    path: "/v1/memory/events",
    validBody: { type: "deploy.completed", text: "Deployed payments 1.2.", source: "ci", subject: "payments", metadata: { repo: "acme/payments" } },
    stringFields: ["text", "source", "subject", "metadata.repo"],
  },
  { name: "chat", method: "POST", path: "/v1/chat/completions", validBody: chatBody, stringFields: ["messages.0.content"] },
  { name: "chatForAgent", method: "POST", path: `/v1/agents/${AGENT}/chat/completions`, validBody: chatBody, stringFields: ["messages.0.content"] },
  { name: "models", method: "GET", path: "/v1/models" },
];

export const bodyRoutes = routes.filter((route) => route.validBody !== undefined);

/** The route's path for one memory id (already percent-encoded as the test wants it on the wire). */
export function pathFor(route: CataloguedRoute, id: string): string {
  return route.path.replace("{id}", id);
}

/** A deep copy of `body` with the value at a dotted path (`messages.0.content`) replaced. */
export function withField(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split(".");
  let node: any = copy;
  for (const key of keys.slice(0, -1)) node = node[key];
  node[keys.at(-1)!] = value;
  return copy;
}

/** A session-backed `/api` route as a signed-in browser calls it; the one `{param}` is filled in per test. */
export interface CataloguedApiRoute {
  name: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  /** The path parameter's name and the code answered when a well-formed value names nothing. */
  param?: { name: string; notFound: string };
  /** A body the route accepts; hostile variants are built from it. Only routes that read a body have one. */
  validBody?: Record<string, unknown>;
  /** The string fields of validBody, where unicode edge cases are planted. */
  stringFields?: string[];
  /** `{}` (or no body at all) is a complete request: an empty body is not refused. */
  emptyBodyValid?: boolean;
}

const assistantParam = { name: "assistantId", notFound: "assistant_not_found" };
const memoryParam = { name: "id", notFound: "memory_not_found" };

/** Every route of the `/api` contract; a test checks the list against the contract so none is missed. */
export const apiRoutes: CataloguedApiRoute[] = [
  { name: "login", method: "POST", path: "/api/auth/login", validBody: { email: "someone@example.com", password: "not the password" }, stringFields: ["email", "password"] },
  { name: "logout", method: "POST", path: "/api/auth/logout", validBody: {}, emptyBodyValid: true },
  { name: "me", method: "GET", path: "/api/auth/me" },
  { name: "switchOrganization", method: "PUT", path: "/api/auth/organization", validBody: { organizationId: "org_x" }, stringFields: ["organizationId"] },
  { name: "changePassword", method: "POST", path: "/api/auth/password", validBody: { currentPassword: "old password", newPassword: "a new long password" }, stringFields: ["currentPassword", "newPassword"] },
  { name: "organization", method: "GET", path: "/api/organization" },
  { name: "updateOrganization", method: "PATCH", path: "/api/organization", validBody: { name: "Renamed" }, stringFields: ["name"] },
  { name: "listMembers", method: "GET", path: "/api/organization/members" },
  { name: "addMember", method: "POST", path: "/api/organization/members", validBody: { email: "new@example.com", role: "member", displayName: "New" }, stringFields: ["email", "role", "displayName"] },
  { name: "changeRole", method: "PATCH", path: "/api/organization/members/{userId}", param: { name: "userId", notFound: "member_not_found" }, validBody: { role: "admin" }, stringFields: ["role"] },
  { name: "removeMember", method: "DELETE", path: "/api/organization/members/{userId}", param: { name: "userId", notFound: "member_not_found" } },
  { name: "listTokens", method: "GET", path: "/api/organization/tokens" },
  { name: "createToken", method: "POST", path: "/api/organization/tokens", validBody: { name: "ci", scopes: ["memory:read"], environment: "production", agents: ["bot"] }, stringFields: ["name", "scopes.0", "environment", "agents.0"] },
  { name: "revokeToken", method: "DELETE", path: "/api/organization/tokens/{tokenId}", param: { name: "tokenId", notFound: "token_not_found" } },
  { name: "listAgents", method: "GET", path: "/api/organization/agents" },
  { name: "listCandidates", method: "GET", path: "/api/memory/candidates" },
  { name: "promoteCandidate", method: "POST", path: "/api/memory/candidates/{id}/promote", param: memoryParam, validBody: { reason: "checked" }, stringFields: ["reason"], emptyBodyValid: true },
  { name: "rejectCandidate", method: "POST", path: "/api/memory/candidates/{id}/reject", param: memoryParam, validBody: { reason: "checked" }, stringFields: ["reason"], emptyBodyValid: true },
  { name: "listAssistants", method: "GET", path: "/api/assistants" },
  { name: "createAssistant", method: "POST", path: "/api/assistants", validBody: { name: "Helper", type: "employee_personal" }, stringFields: ["name", "type"] },
  { name: "assistant", method: "GET", path: "/api/assistants/{assistantId}", param: assistantParam },
  { name: "renameAssistant", method: "PATCH", path: "/api/assistants/{assistantId}", param: assistantParam, validBody: { name: "Renamed" }, stringFields: ["name"] },
  { name: "deleteAssistant", method: "DELETE", path: "/api/assistants/{assistantId}", param: assistantParam },
  { name: "assistantChanges", method: "GET", path: "/api/assistants/{assistantId}/changes", param: assistantParam },
  { name: "registry", method: "GET", path: "/api/capabilities/registry" },
  { name: "capability", method: "GET", path: "/api/capabilities/registry/{capabilityId}", param: { name: "capabilityId", notFound: "capability_not_found" } },
  { name: "assistantCapabilities", method: "GET", path: "/api/assistants/{assistantId}/capabilities", param: assistantParam },
  { name: "availableCapabilities", method: "GET", path: "/api/assistants/{assistantId}/available-capabilities", param: assistantParam },
  {
    name: "updateCapabilities",
    method: "PATCH",
    path: "/api/assistants/{assistantId}/capabilities",
    param: assistantParam,
    validBody: { capabilities: ["search_memory", "translate_messages"], capabilityConfigs: { search_memory: { maxMemories: 5 }, translate_messages: { targetLanguages: ["de"] } } },
    stringFields: ["capabilities.0", "capabilityConfigs.translate_messages.targetLanguages.0"],
  },
  { name: "reflectionSettings", method: "GET", path: "/api/memory/reflection/settings" },
  // Every setting is a number or a switch; `{}` changes nothing and is accepted.
  {
    name: "updateReflectionSettings",
    method: "PATCH",
    path: "/api/memory/reflection/settings",
    validBody: { enabled: true, intervalMinutes: 120, processes: { duplicates: { similarity: 0.9 }, candidates: { autoPromote: false } } },
    emptyBodyValid: true,
  },
  { name: "reflectionEvents", method: "GET", path: "/api/memory/reflection/events" },
  { name: "reflectionAudits", method: "GET", path: "/api/memory/reflection/audits" },
  { name: "reflectionMetrics", method: "GET", path: "/api/memory/reflection/metrics" },
  { name: "reflectionMetricsSummary", method: "GET", path: "/api/memory/reflection/metrics/summary" },
  { name: "reflectionMetricsTrend", method: "GET", path: "/api/memory/reflection/metrics/trend" },
  { name: "reflectionMetricsDistribution", method: "GET", path: "/api/memory/reflection/metrics/distribution" },
  { name: "runReflection", method: "POST", path: "/api/memory/reflection/run", validBody: { environment: "test" }, stringFields: ["environment"], emptyBodyValid: true },
  { name: "searchMemories", method: "GET", path: "/api/memory/search" },
  { name: "developerEvents", method: "GET", path: "/api/memory/events" },
  { name: "workflowStates", method: "GET", path: "/api/memory/workflows" },
  { name: "memory", method: "GET", path: "/api/memory/{id}", param: memoryParam },
  ...["reinforce", "suppress", "restore", "tombstone"].map(
    (verb): CataloguedApiRoute => ({ name: `${verb}Memory`, method: "POST", path: `/api/memory/{id}/${verb}`, param: memoryParam, validBody: { reason: "checked" }, stringFields: ["reason"], emptyBodyValid: true }),
  ),
];

export const apiBodyRoutes = apiRoutes.filter((route) => route.validBody !== undefined);

/** The route's path with its parameter (already percent-encoded as the test wants it on the wire). */
export function apiPathFor(route: CataloguedApiRoute, value: string): string {
  return route.param ? route.path.replace(`{${route.param.name}}`, value) : route.path;
}

/** A cursor as the server hands them out (a position: a time and an id). */
const cursor = Buffer.from(JSON.stringify(["2026-01-01T00:00:00.000Z", "mem_0123456789abcdef0123456789abcdef"])).toString("base64url");

/**
 * Every query key of each `/api` route that reads a query string, with a value it accepts on its own, so in a
 * hostile variant (the key twice, as a list or an object, empty) the variant is the only fault. A test checks
 * the keys against the contract so none is missed.
 */
export const apiQueries: Record<string, Record<string, string>> = {
  listCandidates: { environment: "production" },
  listAgents: { cursor: "helper", limit: "10" },
  listMembers: { cursor, limit: "10" },
  listTokens: { cursor, limit: "10" },
  assistantChanges: { cursor: "3", limit: "10" },
  listAssistants: { cursor, limit: "10" },
  registry: { assistantType: "org_shared", category: "memory" },
  reflectionEvents: { environment: "production", process: "duplicates", action: "suppressed_duplicate", from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z", cursor, limit: "10" },
  reflectionAudits: { environment: "production", cursor, limit: "10" },
  reflectionMetrics: { environment: "production", from: "2026-01-01", to: "2026-01-02" },
  reflectionMetricsSummary: { environment: "production" },
  reflectionMetricsTrend: { environment: "production", from: "2026-01-01", to: "2026-01-02" },
  reflectionMetricsDistribution: { environment: "production" },
  searchMemories: { environment: "production", q: "deploy", kind: "fact", state: "durable", agent: "helper", subject: "payments", source: "api", cursor, limit: "10" },
  developerEvents: { environment: "production", type: "deploy.completed", cursor, limit: "10" },
  workflowStates: { environment: "production", workflow: "deployment", limit: "10" },
  memory: { historyCursor: cursor, historyLimit: "10" },
};
