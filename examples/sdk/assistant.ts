/**
 * An agent-scoped assistant that chats with memory: it keeps its own procedures, answers through Engram's
 * gateway (which grounds the model in the agent's memory), streams the answer, and reinforces what it used.
 *   ENGRAM_TOKEN=acm_… pnpm --filter @engram/examples assistant "How do I roll back payments-api?"
 */
import { Engram } from "@engram/sdk";

const assistant = new Engram().agent("oncall-assistant");

// What this assistant knows. Fixed keys make re-running the example a replay instead of duplicates.
const knowledge = [
  { text: "Roll back payments-api with `make rollback VERSION=<previous tag>`, then watch the 5xx dashboard for 10 minutes.", subject: "payments-api", memoryKind: "procedure" as const },
  { text: "payments-api owners are the Payments team; page them through PagerDuty service PAY.", subject: "payments-api", memoryKind: "fact" as const },
];
for (const [index, memory] of knowledge.entries()) {
  await assistant.memory.remember(memory, { idempotencyKey: `oncall-assistant:knowledge:${index}` });
}

const question = process.argv[2] ?? "How do I roll back payments-api?";
const model = (await assistant.models.list()).data[0]!.id;
const messages = [
  { role: "system" as const, content: "You are the on-call assistant. Answer briefly, from what the organization knows." },
  { role: "user" as const, content: question },
];

// The gateway retrieves inside this agent's boundary and adds the context block for the model.
const stream = await assistant.chat.completions.create({ model, messages, stream: true });
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? "");
process.stdout.write("\n");

// The memories that answered the question were useful: reinforcing them ranks them higher next time.
const { memories } = await assistant.memory.recall({ query: question, limit: 2 });
for (const memory of memories) {
  await assistant.memory.reinforce(memory.id, { reason: `answered "${question}"`, actor: "oncall-assistant" });
}
console.log(`reinforced ${memories.length} memories`);
