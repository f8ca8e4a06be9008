// A stand-in OpenAI-compatible model for the gateway benchmark, run as its own process so that the
// gateway under test, Portkey and the direct calls all reach it the same way. Plain JavaScript: no
// TypeScript loader needed. Prints "listening <port>" once ready.
import { createServer } from "node:http";

const content = "The payments-api deploys with make release after CI is green; the on-call engineer watches the canary.";

const server = createServer((req, res) => {
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (raw += chunk));
  req.on("end", () => {
    if (req.method === "GET" && req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[{"id":"bench-model","object":"model"}]}');
      return;
    }
    const body = JSON.parse(raw);
    if (body.stream) {
      // Server-sent events as OpenAI streams them: a few content chunks, then [DONE].
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = (delta, finish) =>
        `data: ${JSON.stringify({ id: "chatcmpl-upstream", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }, null));
      for (const word of content.split(" ")) res.write(chunk({ content: `${word} ` }, null));
      res.end(`${chunk({}, "stop")}data: [DONE]\n\n`);
      return;
    }
    const answer = {
      id: "chatcmpl-upstream",
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 20, completion_tokens: 24, total_tokens: 44 },
    };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
