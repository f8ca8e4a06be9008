import { apiContract } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { AssistantService } from "../../domain/assistants/assistant-service";
import { actorOf } from "./session-auth";
import { assistantDetailView, changeView, etagOf, versionFromIfMatch } from "./views";

const s = initServer();

export function assistantRoutes(assistants: AssistantService) {
  return s.router(apiContract.assistants, {
    list: async ({ query, res }) => {
      const actor = actorOf(res);
      const page = await assistants.page(actor.orgId, actor, query);
      return { status: 200 as const, body: { success: true as const, assistants: page.items.map(assistantDetailView), nextCursor: page.nextCursor } };
    },
    get: async ({ params, res }) => {
      const actor = actorOf(res);
      const assistant = await assistants.get(actor.orgId, params.assistantId, actor);
      res.setHeader("ETag", etagOf(assistant));
      return { status: 200 as const, body: { success: true as const, assistant: assistantDetailView(assistant) } };
    },
    create: async ({ body, res }) => {
      const actor = actorOf(res);
      const assistant = await assistants.create(actor.orgId, body, actor);
      res.setHeader("ETag", etagOf(assistant));
      return { status: 201 as const, body: { success: true as const, assistant: assistantDetailView(assistant) } };
    },
    rename: async ({ params, body, headers, res }) => {
      const actor = actorOf(res);
      const assistant = await assistants.rename(actor.orgId, params.assistantId, body.name, actor, versionFromIfMatch(headers["if-match"]));
      res.setHeader("ETag", etagOf(assistant));
      return { status: 200 as const, body: { success: true as const, assistant: assistantDetailView(assistant) } };
    },
    delete: async ({ params, headers, res }) => {
      const actor = actorOf(res);
      await assistants.delete(actor.orgId, params.assistantId, actor, versionFromIfMatch(headers["if-match"]));
      return { status: 200 as const, body: { success: true as const } };
    },
    changes: async ({ params, query, res }) => {
      const actor = actorOf(res);
      const page = await assistants.changes(actor.orgId, params.assistantId, actor, query);
      return { status: 200 as const, body: { success: true as const, changes: page.changes.map(changeView), nextCursor: page.nextCursor } };
    },
  });
}
