import { contract } from "@engram/contract";
import openApiDocument from "@engram/contract/openapi.json" with { type: "json" };
import { createExpressEndpoints } from "@ts-rest/express";
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { RouteGroup } from "./domain/rate-limits/policy";
import type { Services } from "./services";
import { authenticate } from "./http/auth";
import { jsonBody, refuseOversizedBody } from "./http/body";
import { errorHandler, notFoundHandler, requestValidationErrorHandler } from "./http/errors";
import { eventRoutes } from "./http/event-routes";
import { chatCompletionHandler, healthRoutes, modelRoutes, modelsContract } from "./http/inference-routes";
import { checkInput } from "./http/input-checks";
import { memoryRoutes } from "./http/memory-routes";
import { rateLimit } from "./http/rate-limit";
import { requestContext } from "./http/request-context";

export interface AppOptions {
  services: Services;
  logger: Logger;
  /** Check every response body against the contract (on in tests; costs a parse per response). */
  validateResponses?: boolean;
}

export function createApp({ services, logger, validateResponses = false }: AppOptions): Express {
  const app = express();
  // Routes match exactly (set before the first route): a path in another case or with a trailing slash is
  // no route, so it can never reach a handler outside its rate-limit group.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  app.use(requestContext(logger));
  app.use(refuseOversizedBody);

  app.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });

  const endpointOptions = { requestValidationErrorHandler, responseValidation: validateResponses };
  // The health check needs no token, so it comes before authentication.
  createExpressEndpoints(contract.health, healthRoutes(services.inference), app, endpointOptions);

  app.use("/v1", authenticate(services.tokens));
  // Each route counts itself in its own group, then reads and checks its body.
  const routeMiddleware = (group: RouteGroup) => [rateLimit(services.rateLimiter, group), jsonBody, checkInput];
  const groupOptions = (group: RouteGroup) => ({ ...endpointOptions, globalMiddleware: routeMiddleware(group) });
  createExpressEndpoints(contract.events, eventRoutes(services.events), app, groupOptions("events"));
  createExpressEndpoints(contract.memory, memoryRoutes(services.memories), app, groupOptions("memory"));
  const chat = chatCompletionHandler(services.inference, { validateResponses });
  app.post(contract.inference.chatCompletions.path, ...routeMiddleware("inference"), chat);
  app.post(contract.inference.chatCompletionsForAgent.path, ...routeMiddleware("inference"), chat);
  createExpressEndpoints(modelsContract, modelRoutes(services.inference), app, groupOptions("inference"));

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
