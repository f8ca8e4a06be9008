import { initContract } from "@ts-rest/core";
import { commonErrorResponses } from "./errors";
import { eventsContract } from "./events";
import { healthContract, inferenceContract } from "./inference";
import { memoryContract } from "./memory";

export * from "./common";
export * from "./errors";
export * from "./events";
export * from "./inference";
export * from "./memory";
export * from "./api/index";

const c = initContract();

/** Every public route of the service, shared by the server, the SDK and the OpenAPI document. */
export const contract = c.router(
  { events: eventsContract, memory: memoryContract, inference: inferenceContract, health: healthContract },
  { strictStatusCodes: true, commonResponses: commonErrorResponses },
);
export type TContract = typeof contract;
