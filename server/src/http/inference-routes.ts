import { contract, ZChatCompletion, ZChatCompletionChunk } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { Request, RequestHandler, Response } from "express";
import type { z, ZodTypeAny } from "zod";
import { resolveAgent } from "../domain/access/caller";
import { AppError } from "../domain/kernel/errors";
import type { InferenceGateway } from "../domain/inference/gateway";
import { ClientGone, UpstreamFailure } from "../domain/inference/upstream";
import { refuseAgentHeader } from "./agent-header";
import { callerOf } from "./auth";
import { errorBodyOf, fromZodIssue } from "./errors";

const s = initServer();
const chatRoute = contract.inference.chatCompletionsForAgent;

/** Validates with the contract's own schema and answers the documented error for the first problem. */
function parse<S extends ZodTypeAny>(schema: S, value: unknown, where: "body" | "path" | "header"): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodIssue(result.error.issues[0]!, where);
  return result.data;
}

/** Upstream failures are logged with what the upstream said (the caller sees only the mapped error). */
function logUpstreamFailure(req: Request, error: unknown): void {
  if (error instanceof UpstreamFailure) req.log.warn({ code: error.code, ...error.detail }, "upstream model failed");
}

/** Writes one SSE event, waiting for the socket to drain when the client reads slower than the model writes. */
async function writeEvent(res: Response, data: string): Promise<void> {
  if (res.write(`data: ${data}\n\n`)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * POST /v1/chat/completions and /v1/agents/:agentSlug/chat/completions. A plain Express handler, as
 * ts-rest cannot stream, validating with the contract's schemas all the same. Everything before the first
 * byte (validation, scope, model, context, memory, the upstream accepting) answers as a JSON error with
 * its status; an upstream failure after streaming began is sent as a `data: {"error": …}` event and the
 * stream closed. A client that disconnects cancels the upstream request.
 */
export function chatCompletionHandler(gateway: InferenceGateway, options: { validateResponses: boolean }): RequestHandler {
  const check = <T>(schema: ZodTypeAny, value: T): T => (options.validateResponses ? (schema.parse(value) as T) : value);

  async function handle(req: Request, res: Response): Promise<void> {
    const caller = callerOf(res);
    const params: { agentSlug?: string } = req.params.agentSlug === undefined ? {} : parse(chatRoute.pathParams, req.params, "path");
    const headers = parse(
      chatRoute.headers,
      { "x-service-agent": req.headers["x-service-agent"], "x-engram-memory": req.headers["x-engram-memory"], "x-engram-assistant": req.headers["x-engram-assistant"] },
      "header",
    );
    const body = parse(chatRoute.body, req.body, "body");
    const agent = resolveAgent(caller, params.agentSlug, headers["x-service-agent"]);
    const prepared = await gateway.prepare(caller, agent, body, { memory: headers["x-engram-memory"] !== "off", assistantId: headers["x-engram-assistant"] });
    res.setHeader("X-Engram-Memories-Used", String(prepared.memoriesUsed));
    if (prepared.assistant) res.setHeader("X-Engram-Capabilities", prepared.assistant.capabilities.join(","));

    const client = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) client.abort();
    });

    if (!body.stream) {
      const completion = JSON.stringify(check(ZChatCompletion, await gateway.complete(prepared, client.signal)));
      // Written directly: Express's res.json would also hash the body for an ETag nobody uses on a POST.
      res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(completion) });
      res.end(completion);
      return;
    }

    const chunks = await gateway.stream(prepared, client.signal);
    res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", Connection: "keep-alive", "X-Accel-Buffering": "no" });
    res.flushHeaders();
    try {
      for await (const chunk of chunks) {
        if (client.signal.aborted) break;
        await writeEvent(res, JSON.stringify(check(ZChatCompletionChunk, chunk)));
      }
      if (!client.signal.aborted) await writeEvent(res, "[DONE]");
    } catch (error) {
      if (client.signal.aborted || error instanceof ClientGone) return;
      logUpstreamFailure(req, error);
      // The error handler cannot answer once the stream began: anything unexpected is logged here.
      if (!(error instanceof AppError)) req.log.error({ err: error }, "chat completion stream failed");
      res.write(`data: ${JSON.stringify(errorBodyOf(error))}\n\n`);
    } finally {
      res.end();
    }
  }

  return (req, res, next) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof ClientGone) return res.destroy();
      logUpstreamFailure(req, error);
      next(error);
    });
  };
}

/** The routes ts-rest serves as usual: the model list (any valid token). */
export const modelsContract = { listModels: contract.inference.listModels };

export function modelRoutes(gateway: InferenceGateway) {
  return s.router(modelsContract, {
    listModels: async ({ req }) => {
      refuseAgentHeader(req, "GET /v1/models", "every agent is offered the same model");
      return { status: 200 as const, body: gateway.models() };
    },
  });
}

/** GET /v1/health: no authentication. */
export function healthRoutes(gateway: InferenceGateway) {
  return s.router(contract.health, {
    check: async () => gateway.health(),
  });
}
