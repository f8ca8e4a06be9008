import { contract } from "@engram/contract";
import openApiDocument from "@engram/contract/openapi.json" with { type: "json" };
import { createExpressEndpoints } from "@ts-rest/express";
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { Services } from "./services";
import { authenticate } from "./http/auth";
import { jsonBody } from "./http/body";
import { errorHandler, notFoundHandler, requestValidationErrorHandler } from "./http/errors";
import { eventRoutes } from "./http/event-routes";
import { chatCompletionHandler, healthRoutes, modelRoutes, modelsContract } from "./http/inference-routes";
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
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  app.use(requestContext(logger));

  app.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });

  const endpointOptions = { requestValidationErrorHandler, responseValidation: validateResponses };
  // The health check needs no token, so it comes before authentication.
  createExpressEndpoints(contract.health, healthRoutes(services.inference), app, endpointOptions);

  app.use("/v1", authenticate(services.tokens), rateLimit(services.rateLimiter), jsonBody);
  createExpressEndpoints(contract.events, eventRoutes(services.events), app, endpointOptions);
  createExpressEndpoints(contract.memory, memoryRoutes(services.memories), app, endpointOptions);
  const chat = chatCompletionHandler(services.inference, { validateResponses });
  app.post(contract.inference.chatCompletions.path, chat);
  app.post(contract.inference.chatCompletionsForAgent.path, chat);
  createExpressEndpoints(modelsContract, modelRoutes(services.inference), app, endpointOptions);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
