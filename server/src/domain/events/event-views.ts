import type { TEnvironment } from "@engram/contract";
import { decodeCursor, encodeCursor, pageOf } from "../kernel/page-cursor";
import type { OrgActor } from "../people/roles";
import type { EventRepository, WorkflowRepository } from "./ports";
import type { BusinessEventRecord, WorkflowStateRecord } from "./records";

/** Developer events and the workflow states they keep, for everyone signed in to the organization. */
export function developerEventViews(deps: { events: Pick<EventRepository, "listNewest">; workflows: Pick<WorkflowRepository, "listRecent"> }) {
  const { events, workflows } = deps;
  return {
    /** The environment's events, newest first, a page at a time. */
    async recent(
      actor: OrgActor,
      environment: TEnvironment,
      query: { type?: string; cursor?: string; limit: number },
    ): Promise<{ events: BusinessEventRecord[]; nextCursor: string | null }> {
      const before = decodeCursor(query.cursor);
      const rows = await events.listNewest({ orgId: actor.orgId, environment }, query.type ?? null, before, query.limit + 1);
      const { items, nextCursor } = pageOf(rows, query.limit, (event) => encodeCursor({ createdAt: event.receivedAt, id: event.id }));
      return { events: items, nextCursor };
    },

    workflows: (actor: OrgActor, environment: TEnvironment, options: { workflow?: string; limit: number }): Promise<WorkflowStateRecord[]> =>
      workflows.listRecent(actor.orgId, environment, options),
  };
}

export type DeveloperEventViews = ReturnType<typeof developerEventViews>;
