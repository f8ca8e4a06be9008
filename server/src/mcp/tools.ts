import {
  contract,
  memoryLimits,
  type TRetrieveResponse,
  ZControlBody,
  ZEncodeBody,
  ZEventBody,
  ZEventResult,
  ZHistoryPageQuery,
  ZIdempotencyHeaders,
  ZMemoryResult,
  ZProvenance,
  ZRetrieveBody,
  ZRetrieveResponse,
} from "@engram/contract";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, describeFields, jsonResult, type ToolDefinition } from "./tool-definition";

/*
 * The tools' arguments are the request bodies the HTTP routes validate, with the path's memory id and the
 * Idempotency-Key header as fields: the rules are the contract's, defined once. The agent and the environment
 * come from the connection and the token, never from arguments.
 */

const idempotencyKey = ZIdempotencyHeaders.shape["idempotency-key"];
const ZMemoryIdArgument = contract.memory.provenance.pathParams.strict();

const idDescription = { id: "The memory's id (mem_…), as remember or recall returned it." };
const controlDescriptions = {
  ...idDescription,
  reason: "Why, for the memory's history.",
  actor: "Who asked for it, for the memory's history (the token's name when omitted).",
};
const retryDescription = "Makes a retry safe: the same key with the same arguments answers the first result instead of writing again.";

const remember = defineTool({
  name: "remember",
  title: "Remember",
  description:
    "Store something the organization should remember: a fact, preference, decision, procedure, event or observation. " +
    "Later recalls find it (in candidate write mode it first waits for review). Answers the new memory with its id.",
  scope: "memory:write",
  rateLimitGroup: "memory",
  agentForm: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  input: describeFields(ZEncodeBody.extend({ idempotencyKey }), {
    text: "What to remember, in a sentence or a short paragraph.",
    subject: "What it is about: a service, team, project or person.",
    memoryKind: "What kind of knowledge it is.",
    confidence: "How sure the source is, from 0 to 1.",
    idempotencyKey: retryDescription,
  }),
  output: ZMemoryResult,
  async call({ memories }, { caller, agent }, { idempotencyKey: key, ...input }) {
    const result = await memories.encode(caller, agent, input, key);
    return jsonResult(result.body, result.replayed ? { idempotentReplayed: true } : undefined);
  },
});

const ZRecalled = ZRetrieveResponse.pick({ memories: true });

/** The context block as the text a model reads, the ids to act on, and the ranked memories as structured content. */
function recallResult({ memories, context }: TRetrieveResponse): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text: context?.systemBlock ?? "" }];
  if (memories.length > 0) content.push({ type: "text", text: `Memory ids, most useful first: ${memories.map((memory) => memory.id).join(", ")}` });
  return { content, structuredContent: { memories } };
}

const recall = defineTool({
  name: "recall",
  title: "Recall",
  description:
    "Find what the organization knows that bears on a question. Answers a ready-to-use context block of the most useful " +
    "memories as text, and the ranked memories (id, score, kind, subject, confidence) as structured content. " +
    "Use the ids with reinforce, suppress, forget or provenance.",
  scope: "memory:read",
  rateLimitGroup: "memory",
  agentForm: true,
  annotations: { readOnlyHint: true, idempotentHint: true },
  // The context block is always assembled: it is the tool's text.
  input: describeFields(ZRetrieveBody.omit({ includeContext: true }), {
    query: "What to look for, in plain words.",
    limit: "How many memories at most.",
    contextMode: "full: each memory with its kind, subject, age and confidence; compact: one short line each.",
  }),
  output: ZRecalled,
  async call({ memories }, { caller, agent }, input) {
    return recallResult(await memories.retrieve(caller, agent, { ...input, includeContext: true }));
  },
});

const ZControlArguments = describeFields(ZMemoryIdArgument.merge(ZControlBody), controlDescriptions);

/** reinforce, suppress and restore: the same arguments and answer, one state change each. */
function controlTool(
  action: "reinforce" | "suppress" | "restore",
  text: { title: string; description: string },
  annotations: { destructiveHint: boolean; idempotentHint: boolean },
) {
  return defineTool({
    name: action,
    ...text,
    scope: "memory:control",
    rateLimitGroup: "memory",
    agentForm: true,
    annotations: { readOnlyHint: false, ...annotations },
    input: ZControlArguments,
    output: ZMemoryResult,
    async call({ memories }, { caller, agent }, { id, ...input }) {
      return jsonResult(await memories[action](caller, agent, id, input));
    },
  });
}

const reinforce = controlTool(
  "reinforce",
  {
    title: "Reinforce a memory",
    description: "Mark a memory as useful (it helped answer something): it ranks higher in later recalls. Works in any state and leaves it unchanged.",
  },
  { destructiveHint: false, idempotentHint: false },
);

const suppress = controlTool(
  "suppress",
  {
    title: "Suppress a memory",
    description: "Hide a durable memory from recall without deleting it (wrong, outdated, or a duplicate). restore brings it back.",
  },
  { destructiveHint: true, idempotentHint: true },
);

const restore = controlTool(
  "restore",
  { title: "Restore a memory", description: "Bring a suppressed memory back into recall." },
  { destructiveHint: false, idempotentHint: true },
);

const forget = defineTool({
  name: "forget",
  title: "Forget a memory",
  description:
    "Tombstone a memory: gone from recall for good, kept only for audit and provenance. It cannot be undone; forgetting it again changes nothing.",
  scope: "memory:delete",
  rateLimitGroup: "memory",
  agentForm: true,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  input: describeFields(ZMemoryIdArgument, idDescription),
  output: ZMemoryResult,
  async call({ memories }, { caller, agent }, { id }) {
    return jsonResult(await memories.tombstone(caller, agent, id));
  },
});

const provenance = defineTool({
  name: "provenance",
  title: "Memory provenance",
  description: "Where a memory came from (the request, token or developer event that made it) and everything that happened to it since.",
  scope: "memory:control",
  rateLimitGroup: "memory",
  agentForm: true,
  annotations: { readOnlyHint: true, idempotentHint: true },
  input: describeFields(ZMemoryIdArgument.merge(ZHistoryPageQuery), {
    ...idDescription,
    historyCursor: "nextHistoryCursor of a previous answer, for the history's next page.",
    historyLimit: `How many history entries at most, oldest first (at most ${memoryLimits.historyPageMax}, the default).`,
  }),
  output: ZProvenance,
  async call({ memories }, { caller, agent }, { id, ...page }) {
    return jsonResult(await memories.provenance(caller, agent, id, page));
  },
});

const sendEvent = defineTool({
  name: "send_event",
  title: "Send an event",
  description:
    "Report what happened in another system: a deploy, incident, CI run, pull request, review finding, support ticket, " +
    "preference or decision. Engram stores it once, moves the workflow state it implies, and may make it a candidate " +
    "memory for review. The same event sent twice is stored once. Events belong to the whole organization: not " +
    "offered on an agent's connection.",
  scope: "memory:write",
  rateLimitGroup: "events",
  agentForm: false,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  input: describeFields(ZEventBody.extend({ idempotencyKey }), {
    type: "Dotted lower-case type, e.g. deploy.completed, incident.resolved, pr.merged, decision.recorded.",
    text: "What happened.",
    source: "The system that reported it, e.g. github or pagerduty.",
    subject: "What it is about, e.g. INC-42 or payments-api.",
    metadata: "Details as a JSON object, e.g. version, environment, url.",
    idempotencyKey: `${retryDescription} Without one, the key is derived from the event itself.`,
  }),
  output: ZEventResult,
  async call({ events }, { caller }, { idempotencyKey: key, ...input }) {
    return jsonResult((await events.ingest(caller, input, key)).body);
  },
});

/** Every tool, in the order tools/list offers them. */
export const tools: readonly ToolDefinition[] = [remember, recall, reinforce, suppress, restore, forget, provenance, sendEvent];
