import { apiContract, contract } from "@engram/contract";
import openApiDocument from "@engram/contract/openapi.json" with { type: "json" };
import { createExpressEndpoints } from "@ts-rest/express";
import type { RequestListener } from "node:http";
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { RouteGroup } from "./domain/rate-limits/policy";
import type { Services } from "./services";
import { type ApplicationConfig, defaultApplicationConfig } from "./application-config";
import { apiErrorHandler, apiNotFoundHandler, apiRequestValidationErrorHandler } from "./http/api/api-errors";
import { assistantRoutes } from "./http/api/assistant-routes";
import { authRoutes, sessionlessAuthContract, sessionlessAuthRoutes, signedInAuthContract } from "./http/api/auth-routes";
import { capabilityRoutes } from "./http/api/capability-routes";
import { memoryExplorerRoutes } from "./http/api/memory-explorer-routes";
import { organizationRoutes } from "./http/api/organization-routes";
import { reflectionRoutes } from "./http/api/reflection-routes";
import { requireSameOrigin } from "./http/api/same-origin";
import { refuseTokens, requireSession, resolveSession, sessionRateSubject } from "./http/api/session-auth";
import { authenticate } from "./http/auth";
import { jsonBody, refuseOversizedBody } from "./http/body";
import { withChatLane } from "./http/chat-lane";
import { consoleAssets } from "./http/console-assets";
import { errorHandler, notFoundHandler, requestValidationErrorHandler } from "./http/errors";
import { eventRoutes } from "./http/event-routes";
import { expressObjects } from "./http/express-objects";
import { chatCompletionHandler, healthRoutes, modelRoutes, modelsContract } from "./http/inference-routes";
import { checkInput } from "./http/input-checks";
import { memoryRoutes } from "./http/memory-routes";
import { rateLimit } from "./http/rate-limit";
import { requestContext } from "./http/request-context";
import { mcpRoutes } from "./mcp/mcp-routes";

export interface AppOptions {
  services: Services;
  logger: Logger;
  /** Check every response body against the contract (on in tests; costs a parse per response). */
  validateResponses?: boolean;
  /** Sessions, cookie and allowed origins of the `/api` routes. */
  application?: ApplicationConfig;
  /** The built console, served at `/`; none when null. */
  consoleDir?: string | null;
}

export interface HttpApp {
  /** The Express app, with chat completions on a lane of their own. */
  listener: RequestListener;
  /** The options of the Node server that serves `listener`: its requests and responses are made as Express's. */
  serverOptions: ReturnType<typeof expressObjects>;
}

export function createApp({ services, logger, validateResponses = false, application = defaultApplicationConfig, consoleDir = null }: AppOptions): HttpApp {
  const app = express();
  // Routes match exactly (set before the first route): a path in another case or with a trailing slash is
  // no route, so it can never reach a handler outside its rate-limit group.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  // ETags are set where they mean something (an assistant's version), not hashed from every body, errors included.
  app.set("etag", false);
  app.set("trust proxy", false);
  const context = requestContext(logger);
  app.use(context);
  app.use(refuseOversizedBody);

  app.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });

  const endpointOptions = { requestValidationErrorHandler, responseValidation: validateResponses };
  // The health check needs no token, so it comes before authentication.
  createExpressEndpoints(contract.health, healthRoutes(services.inference), app, endpointOptions);

  const authentication = authenticate(services.tokens);
  app.use("/v1", authentication);
  // Each route counts itself in its own group, then reads and checks its body.
  const routeMiddleware = (group: RouteGroup) => [rateLimit(services.rateLimiter, group), jsonBody, checkInput];
  const groupOptions = (group: RouteGroup) => ({ ...endpointOptions, globalMiddleware: routeMiddleware(group) });
  createExpressEndpoints(contract.events, eventRoutes(services.events), app, groupOptions("events"));
  createExpressEndpoints(contract.memory, memoryRoutes(services.memories), app, groupOptions("memory"));
  const chat = chatCompletionHandler(services.inference, { validateResponses });
  app.post(contract.inference.chatCompletions.path, ...routeMiddleware("inference"), chat);
  app.post(contract.inference.chatCompletionsForAgent.path, ...routeMiddleware("inference"), chat);
  createExpressEndpoints(modelsContract, modelRoutes(services.inference), app, groupOptions("inference"));
  app.use(mcpRoutes(services));

  mountApplicationRoutes(app, services, application, validateResponses);

  if (consoleDir) app.use(consoleAssets(consoleDir));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return {
    // The same steps the router runs for chat, in the same order (the router serves it with a query string).
    listener: withChatLane(app, [context, refuseOversizedBody, authentication, ...routeMiddleware("inference"), chat], errorHandler),
    serverOptions: expressObjects(app),
  };
}

/**
 * The session-backed `/api` routes: a session cookie, never a token; unsafe requests only from our own pages;
 * errors in the capabilities routes' shape `{ success: false, … }`.
 */
function mountApplicationRoutes(app: Express, services: Services, application: ApplicationConfig, validateResponses: boolean): void {
  app.use("/api", refuseTokens, resolveSession(services.sessions), requireSameOrigin(application.allowedOrigins));
  const endpointOptions = { requestValidationErrorHandler: apiRequestValidationErrorHandler, responseValidation: validateResponses };
  const signedIn = (group: RouteGroup) => ({
    ...endpointOptions,
    globalMiddleware: [requireSession, rateLimit(services.rateLimiter, group, sessionRateSubject), jsonBody, checkInput],
  });
  createExpressEndpoints(sessionlessAuthContract, sessionlessAuthRoutes(services.sessions, application), app, {
    ...endpointOptions,
    globalMiddleware: [jsonBody, checkInput],
  });
  createExpressEndpoints(signedInAuthContract, authRoutes({ sessions: services.sessions, config: application }), app, signedIn("application"));
  createExpressEndpoints(apiContract.organization, organizationRoutes(services.administration), app, signedIn("application"));
  createExpressEndpoints(apiContract.reflection, reflectionRoutes(services.reflection), app, signedIn("application"));
  // After the organization and reflection routes: their fixed `/memory/...` paths win over `/memory/:id`.
  createExpressEndpoints(apiContract.memory, memoryExplorerRoutes({ explorer: services.explorer, events: services.developerEvents }), app, signedIn("application"));
  createExpressEndpoints(apiContract.assistants, assistantRoutes(services.assistants), app, signedIn("capabilities"));
  createExpressEndpoints(apiContract.capabilities, capabilityRoutes(services.assistants), app, signedIn("capabilities"));
  app.use("/api", apiNotFoundHandler, apiErrorHandler);
}
