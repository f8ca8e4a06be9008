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
