/**
 * The official `openai` package pointed at Engram: the gateway speaks OpenAI's chat API and grounds every
 * answer in organization memory. Plain, streamed, and inside one agent's boundary.
 *   ENGRAM_TOKEN=acm_… pnpm --filter @engram/examples openai
 */
import OpenAI from "openai";

const baseUrl = process.env.ENGRAM_BASE_URL ?? "http://localhost:8787";
const apiKey = process.env.ENGRAM_TOKEN;
if (!apiKey) throw new Error("set ENGRAM_TOKEN to a token with the inference:chat scope");

const openai = new OpenAI({ apiKey, baseURL: `${baseUrl}/v1` });
const model = (await openai.models.list()).data[0]!.id;
const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: "How do we deploy payments?" }];

// Plain; withResponse() shows Engram's headers too.
const { data: completion, response } = await openai.chat.completions.create({ model, messages }).withResponse();
console.log(completion.choices[0]?.message.content);
console.log(`memories used: ${response.headers.get("x-engram-memories-used")}, requests left: ${response.headers.get("ratelimit-remaining")}`);

// Streamed.
const stream = await openai.chat.completions.create({ model, messages, stream: true });
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? "");
process.stdout.write("\n");

// Agent form: the same client with the agent's base URL answers inside that agent's memory boundary.
const triage = new OpenAI({ apiKey, baseURL: `${baseUrl}/v1/agents/triage-bot` });
const agentAnswer = await triage.chat.completions.create({ model, messages: [{ role: "user", content: "Who do I page for a P1?" }] });
console.log(`triage-bot: ${agentAnswer.choices[0]?.message.content}`);
