/**
 * The floor of the gateway's pass-through figures: the least an OpenAI-compatible proxy on Node does, and
 * nothing else. It reads and parses the chat request, names the upstream's model, sends it on with undici's
 * `request` (as Engram does), parses the answer and writes it back under its own id and model. No
 * authentication, limits, validation or logging. Served from this process's main thread, as Engram is in the
 * benchmark, so the two share the machine alike.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startBareProxy(upstreamUrl: string, upstreamModel: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    try {
      const chat = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
      const upstream = await request(`${upstreamUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
        body: JSON.stringify({ ...chat, model: upstreamModel }),
      });
      const answer = (await upstream.body.json()) as Record<string, unknown>;
      const body = JSON.stringify({ ...answer, id: "chatcmpl-bare", model: chat.model });
      res.writeHead(upstream.statusCode, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
    } catch {
      res.writeHead(502).end();
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
