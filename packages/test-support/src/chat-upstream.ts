import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./listen";

/** One request the upstream received, as it received it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** True once the caller closed the connection before the upstream finished answering. */
  aborted: boolean;
  /** Resolves when the exchange is over: answered in full, or cut off by the caller. */
  closed: Promise<void>;
}

/** How the upstream answers a chat request; the default answers like a small OpenAI model. */
export type Behaviour = (request: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function completionOf(request: ReceivedRequest, content: string, finishReason = "stop") {
  return {
    id: "upstream-completion-1",
    object: "chat.completion",
    created: 1,
    model: request.body.model,
    system_fingerprint: "fp_upstream",
    choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: finishReason }],
    usage: { prompt_tokens: 999, completion_tokens: 999, total_tokens: 1998 },
  };
}

/** Answers `content` whole, or as SSE pieces when the request streams. */
export function answer(pieces: string[], options: { finishReason?: string; delayMs?: number } = {}): Behaviour {
  return async (request, res) => {
    const finishReason = options.finishReason ?? "stop";
    if (!request.body.stream) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completionOf(request, pieces.join(""), finishReason)));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: "upstream-chunk", object: "chat.completion.chunk", created: 1, model: request.body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: "assistant", content: "" }, null));
    for (const piece of pieces) {
      if (options.delayMs) await sleep(options.delayMs);
      if (request.aborted) return;
      res.write(chunk({ content: piece }, null));
    }
    res.write(chunk({}, finishReason));
    res.end("data: [DONE]\n\n");
  };
}

/** Fails with `status`, an OpenAI-style error body and the given headers. */
export function fail(status: number, message: string, headers: Record<string, string> = {}): Behaviour {
  return (_request, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ error: { message, type: "upstream_error", code: null } }));
  };
}

/** Never answers (until the caller gives up). */
export const hang: Behaviour = () => {};

/** Streams `pieces`, then an error event instead of finishing. */
export function failMidStream(pieces: string[], message: string): Behaviour {
  return (request, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const piece of pieces) {
      res.write(`data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: request.body.model, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`);
    }
    res.end(`data: ${JSON.stringify({ error: { message, type: "server_error" } })}\n\n`);
  };
}

/**
 * A real OpenAI-compatible chat server for tests (node:http): records every request it receives, answers
 * with the behaviour set for the next chat request (streaming SSE or plain JSON), and notices when the
 * caller hangs up before the answer is complete.
 */
export async function startChatUpstream() {
  const requests: ReceivedRequest[] = [];
  let behaviour: Behaviour = answer(["Upstream", " answer", "."]);
  let modelsStatus = 200;

  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    let close!: () => void;
    const received: ReceivedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: raw ? JSON.parse(raw) : null,
      aborted: false,
      closed: new Promise<void>((resolve) => (close = resolve)),
    };
    res.on("close", () => {
      if (!res.writableFinished) received.aborted = true;
      close();
    });
    if (req.method === "GET" && req.url === "/v1/models") {
      res.writeHead(modelsStatus, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "tiny-upstream", object: "model" }] }));
      return;
    }
    requests.push(received);
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    await behaviour(received, res);
  });
  const port = await listenOnLoopback(server);

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** The last chat request received. */
    last(): ReceivedRequest {
      const request = requests.at(-1);
      if (!request) throw new Error("the upstream received no request");
      return request;
    },
    behave(next: Behaviour) {
      behaviour = next;
    },
    setModelsStatus(status: number) {
      modelsStatus = status;
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type ChatUpstream = Awaited<ReturnType<typeof startChatUpstream>>;
