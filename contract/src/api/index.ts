import { initContract } from "@ts-rest/core";
import { assistantsContract, capabilitiesContract } from "./assistants";
import { authContract } from "./auth";
import { memoryExplorerContract } from "./memory";
import { organizationContract } from "./organization";
import { reflectionContract } from "./reflection";
import { apiErrorResponses } from "./responses";

export * from "./assistants";
export * from "./auth";
export * from "./capabilities";
export * from "./memory";
export * from "./organization";
export * from "./reflection";
export * from "./responses";

const c = initContract();

/**
 * The session-backed application routes under `/api`: private and unstable (interface version 3.9.0), for the
 * console and people signed in; tokens are not accepted here.
 */
export const apiContract = c.router(
  { auth: authContract, organization: organizationContract, assistants: assistantsContract, capabilities: capabilitiesContract, reflection: reflectionContract, memory: memoryExplorerContract },
  { pathPrefix: "/api", strictStatusCodes: true, commonResponses: apiErrorResponses },
);
export type TApiContract = typeof apiContract;
