import { apiContract, type TDeveloperEvent, type TWorkflowState } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { Request, Response } from "express";
import type { DeveloperEventViews } from "../../domain/events/event-views";
import type { BusinessEventRecord, WorkflowStateRecord } from "../../domain/events/records";
import type { ExplorerControl, MemoryExplorer } from "../../domain/memory/memory-explorer";
import { requestIdOf } from "../request-context";
import { actorOf } from "./session-auth";

const s = initServer();
const ok = { success: true as const };

const eventView = (event: BusinessEventRecord): TDeveloperEvent => ({
  id: event.id,
  environment: event.environment,
  type: event.type,
  text: event.text,
  source: event.source,
  subject: event.subject,
  metadata: event.metadata,
  idempotencyKey: event.idempotencyKey,
  triageRule: event.triageRule,
  receivedAt: event.receivedAt.toISOString(),
});

const workflowView = (state: WorkflowStateRecord): TWorkflowState => ({
  workflow: state.workflow,
  subject: state.subject,
  track: state.track,
  state: state.state,
  details: state.details,
  lastEventId: state.lastEventId,
  updatedAt: state.updatedAt.toISOString(),
});

/** The memory explorer and developer-event views: thin handlers over the explorer and event services. */
export function memoryExplorerRoutes(deps: { explorer: MemoryExplorer; events: DeveloperEventViews }) {
  const { explorer, events } = deps;
  const control =
    (action: ExplorerControl) =>
    async ({ params, body, req, res }: { params: { id: string }; body: { reason?: string } | undefined; req: Request; res: Response }) => ({
      status: 200 as const,
      body: { ...ok, ...(await explorer.control(actorOf(res), params.id, action, { reason: body?.reason, requestId: requestIdOf(req) })) },
    });

  return s.router(apiContract.memory, {
    search: async ({ query, res }) => ({ status: 200 as const, body: { ...ok, ...(await explorer.search(actorOf(res), query)) } }),
    events: async ({ query, res }) => {
      const { environment, ...page } = query;
      const answer = await events.recent(actorOf(res), environment, page);
      return { status: 200 as const, body: { ...ok, events: answer.events.map(eventView), nextCursor: answer.nextCursor } };
    },
    workflows: async ({ query, res }) => ({
      status: 200 as const,
      body: { ...ok, workflows: (await events.workflows(actorOf(res), query.environment, { workflow: query.workflow, limit: query.limit })).map(workflowView) },
    }),
    get: async ({ params, query, res }) => ({ status: 200 as const, body: { ...ok, ...(await explorer.get(actorOf(res), params.id, query)) } }),
    reinforce: control("reinforce"),
    suppress: control("suppressed"),
    restore: control("restored"),
    tombstone: control("tombstoned"),
  });
}
