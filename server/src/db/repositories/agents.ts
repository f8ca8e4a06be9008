import { randomUUID } from "node:crypto";
import type { AgentRepository } from "../../domain/ports";
import type { PrismaTx } from "../prisma";

export function agentRepository(db: PrismaTx): AgentRepository {
  return {
    async ensure(orgId, slug) {
      await db.agent.upsert({
        where: { orgId_slug: { orgId, slug } },
        create: { id: `agt_${randomUUID().replaceAll("-", "")}`, orgId, slug },
        update: {},
      });
    },
  };
}
