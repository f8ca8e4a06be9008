import { countTokens } from "gpt-tokenizer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";
import { MODEL, openai, tenantWithMemories } from "./support";

let server: TestServer;
beforeAll(async () => {
  // No upstream configured: the embedded responder answers.
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

const memories = [
  { text: "Payments-api deploys with make release after CI is green.", subject: "payments-api" },
  {
    text:
      "The payments-api runbook has many sections about unrelated chores. The on-call engineer restarts the ledger consumer after a failed deploy of payments-api. " +
      "Alerts go to the #payments channel and page the secondary after ten minutes without acknowledgement, which has caused confusion during holidays in the past.",
    subject: "payments-api",
  },
  { text: "The cafeteria serves soup on Fridays.", subject: "office" },
];

describe("the embedded responder (no upstream configured)", () => {
  it("answers with an extractive, cited summary of the relevant memories, the same every time", async () => {
    const { token, ids } = await tenantWithMemories(server, memories);
    const ask = { model: MODEL, messages: [{ role: "user" as const, content: "What happens after a failed deploy of payments-api?" }] };
    const { data, response } = await openai(server, token).chat.completions.create(ask).withResponse();
    const content = data.choices[0]!.message.content!;
    expect(response.headers.get("x-engram-memories-used")).toBe("2");
    expect(content).toMatch(/^From the organization's memory \(2 stored memories, most relevant first\):/);
    // A long memory is quoted by its most relevant sentence, a short one whole; each is cited.
    expect(content).toContain("- The on-call engineer restarts the ledger consumer after a failed deploy of payments-api. …");
    expect(content).not.toContain("caused confusion during holidays");
    expect(content).toContain("- Payments-api deploys with make release after CI is green. [");
    expect(content).toContain(`(${ids[0]})`);
    expect(content).toContain(`(${ids[1]})`);
    expect(content).not.toContain("soup");
    expect(content).toContain("not a language model");
    expect(data.choices[0]!.finish_reason).toBe("stop");
    expect(data.usage!.completion_tokens).toBe(countTokens(content));

    const again = await openai(server, token).chat.completions.create(ask);
    expect(again.choices[0]!.message.content).toBe(content);
  });

  it("says plainly that nothing relevant is stored", async () => {
    const { token } = await tenantWithMemories(server, memories);
    const { data, response } = await openai(server, token)
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Who won the 1998 world cup?" }] })
      .withResponse();
    expect(response.headers.get("x-engram-memories-used")).toBe("0");
    expect(data.choices[0]!.message.content).toMatch(/^The organization has no stored memory relevant to this question/);
  });

  it("streams the same answer piece by piece", async () => {
    const { token } = await tenantWithMemories(server, memories);
    const ask = { model: MODEL, messages: [{ role: "user" as const, content: "How does payments-api deploy?" }] };
    const whole = (await openai(server, token).chat.completions.create(ask)).choices[0]!.message.content;
    const stream = await openai(server, token).chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    const pieces = chunks.flatMap((c) => (c.choices[0]?.delta.content ? [c.choices[0].delta.content] : []));
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join("")).toBe(whole);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(countTokens(whole!));
  });

  it("honours max_tokens (finish_reason length) and stop sequences", async () => {
    const { token } = await tenantWithMemories(server, memories);
    const ask = { model: MODEL, messages: [{ role: "user" as const, content: "How does payments-api deploy?" }] };
    const short = await openai(server, token).chat.completions.create({ ...ask, max_tokens: 5 });
    expect(short.choices[0]!.finish_reason).toBe("length");
    expect(short.usage!.completion_tokens).toBe(5);
    expect(short.choices[0]!.message.content).toBe("From the organization's memory (");

    const stopped = await openai(server, token).chat.completions.create({ ...ask, stop: ["\n"] });
    expect(stopped.choices[0]!.message.content).toBe("From the organization's memory (2 stored memories, most relevant first):");
    expect(stopped.choices[0]!.finish_reason).toBe("stop");
  });

  it("reports the embedded responder in the health check", async () => {
    const health = await fetch(`${server.url}/v1/health`);
    expect(await health.json()).toMatchObject({ status: "ok", database: "ok", upstream: "embedded" });
  });
});
