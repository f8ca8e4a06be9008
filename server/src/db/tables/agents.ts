import type { AgentRepository } from "../../domain/access/ports";
import { newId } from "../../domain/kernel/ids";
import type { PrismaTx } from "../prisma";
import type { Row, Table } from "../sql";
import { organizationTable } from "./organizations";

const AGENT_COLUMNS = ["id", "orgId", "slug", "createdAt"] as const;

/** Agents are registered on their first write; one already registered is left as it is. */
export const agentTable: Table<(typeof AGENT_COLUMNS)[number]> = {
  name: "Agent",
  columns: AGENT_COLUMNS,
  references: [organizationTable],
  onConflict: `ON CONFLICT ("orgId", "slug") DO NOTHING`,
};

export function agentRows(agents: ReadonlyArray<{ orgId: string; slug: string }>, at: Date): Row<(typeof AGENT_COLUMNS)[number]>[] {
  return agents.map(({ orgId, slug }) => ({ id: newId("agt"), orgId, slug, createdAt: at }));
}

export function agentRepository(db: PrismaTx): AgentRepository {
  return {
    list: (orgId, { after, limit }) =>
      db.agent.findMany({
        where: { orgId, ...(after === null ? {} : { slug: { gt: after } }) },
        select: { slug: true, createdAt: true },
        orderBy: { slug: "asc" },
        take: limit,
      }),
  };
}
