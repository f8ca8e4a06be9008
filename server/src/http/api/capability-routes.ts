import { apiContract } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { AssistantService } from "../../domain/assistants/assistant-service";
import { findCapability, toRegistryEntry } from "../../domain/capabilities/registry";
import { registryView } from "../../domain/capabilities/registry-views";
import { capabilityRegistry } from "../../domain/capabilities/registry";
import { AppError } from "../../domain/kernel/errors";
import { actorOf, organizationOf, signedInOf } from "./session-auth";
import { assistantView, availableEtagOf, etagOf, versionFromIfMatch } from "./views";

const s = initServer();

export function capabilityRoutes(assistants: AssistantService) {
  return s.router(apiContract.capabilities, {
    registry: async ({ query }) => ({ status: 200 as const, body: { success: true as const, ...registryView(query) } }),

    capability: async ({ params }) => {
      const capability = findCapability(params.capabilityId);
      if (!capability) throw new AppError("capability_not_found", `No capability ${params.capabilityId.slice(0, 64)}.`, "capabilityId");
      return { status: 200 as const, body: { success: true as const, capability: toRegistryEntry(capability), configFields: [...capability.configFields] } };
    },

    assistantCapabilities: async ({ params, res }) => {
      const actor = actorOf(res);
      const assistant = await assistants.get(actor.orgId, params.assistantId, actor);
      res.setHeader("ETag", etagOf(assistant));
      const { capabilities, capabilityConfigs } = assistant;
      return { status: 200 as const, body: { success: true as const, capabilities, capabilityCount: capabilities.length, capabilityConfigs } };
    },

    availableCapabilities: async ({ params, res }) => {
      const actor = actorOf(res);
      const tier = organizationOf(signedInOf(res)).plan;
      const { assistant, capabilities, grouped, limit } = await assistants.available(actor.orgId, params.assistantId, actor, tier);
      res.setHeader("ETag", availableEtagOf(assistant, tier));
      return {
        status: 200 as const,
        body: {
          success: true as const,
          capabilities,
          grouped,
          organizationTier: tier,
          currentCapabilities: assistant.capabilities,
          // Boost has no configured limit: every capability in the registry can be enabled.
          capabilityLimit: limit ?? capabilityRegistry.length,
        },
      };
    },

    updateCapabilities: async ({ params, body, headers, res }) => {
      const actor = actorOf(res);
      const tier = organizationOf(signedInOf(res)).plan;
      const assistant = await assistants.updateCapabilities(actor.orgId, params.assistantId, body, {
        actor,
        tier,
        ifMatch: versionFromIfMatch(headers["if-match"]),
      });
      res.setHeader("ETag", etagOf(assistant));
      const count = assistant.capabilities.length;
      return {
        status: 200 as const,
        body: {
          success: true as const,
          assistant: assistantView(assistant),
          message: `${assistant.name} now has ${count} ${count === 1 ? "capability" : "capabilities"}; the change applies to new messages.`,
        },
      };
    },
  });
}
