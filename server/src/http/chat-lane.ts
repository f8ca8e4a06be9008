import type { IncomingMessage, RequestListener } from "node:http";
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from "express";

const CHAT_PATH = "/v1/chat/completions";
const AGENT_CHAT_PATH = /^\/v1\/agents\/([^/]+)\/chat\/completions$/;

/**
 * The path parameters of a chat completion request, decoded as Express decodes them, or null for any other
 * request and for a slug that is not percent-encoded UTF-8 (the app's router answers that one as usual).
 */
function chatParams(req: IncomingMessage): Record<string, string> | null {
  if (req.method !== "POST" || req.url === undefined) return null;
  if (req.url === CHAT_PATH) return {};
  const agent = AGENT_CHAT_PATH.exec(req.url);
  if (!agent) return null;
  try {
    return { agentSlug: decodeURIComponent(agent[1]!) };
  } catch {
    return null;
  }
}

/**
 * Serves POST /v1/chat/completions (both path forms) past Express's router: the steps the router would run
 * for that route, in the same order, with the same error handler. The steps use only what Node's request
 * and response offer plus the fields Express would add (`params`, an empty `query`, `originalUrl`,
 * `locals`, `req` and `res`); an error is answered on a request dressed as Express dresses it (its prototypes,
 * which the app's own server gives every request from the start, express-objects.ts), since the error handler
 * writes with Express's `res.json`. Everything else, this route with a query string included, goes to the app.
 * Why: the router's walk and its per-request set-up were a measurable part of a pass-through chat's own time
 * (docs/performance.md).
 */
export function withChatLane(app: Express, steps: RequestHandler[], onError: ErrorRequestHandler): RequestListener {
  return (incoming, outgoing) => {
    const params = chatParams(incoming);
    if (!params) return app(incoming, outgoing);

    const req = Object.assign(incoming, { res: outgoing, params, query: {}, originalUrl: incoming.url }) as unknown as Request;
    const res = Object.assign(outgoing, { req, locals: Object.create(null) }) as unknown as Response;

    let step = 0;
    const next = (error?: unknown): void => {
      if (error) {
        Object.setPrototypeOf(req, app.request);
        Object.setPrototypeOf(res, app.response);
        return onError(error, req, res, () => {});
      }
      const handler = steps[step++];
      if (!handler) return;
      try {
        handler(req, res, next);
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}
