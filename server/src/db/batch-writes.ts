import type { WriteBatch } from "../domain/writes/ports";
import type { UnitOfWork } from "./write-batch";
import { agentRows, agentTable } from "./tables/agents";
import { businessEventRows, businessEventTable } from "./tables/business-events";
import { deleteExpiredKeys, idempotencyRecordTable, idempotencyRows } from "./tables/idempotency-records";
import { memoryRows, memoryTable } from "./tables/memories/memory-table";
import { historyRows, memoryHistoryTable } from "./tables/memory-history";
import { replacedWorkflowStates, workflowStateRows, workflowStateTable } from "./tables/workflow-states";

/** The domain's batch operations as the rows (and deletes) of the tables they write. */
export function writeBatchOver(unit: UnitOfWork): WriteBatch {
  return {
    deleteExpiredKeys(scope, keys, now) {
      if (keys.length > 0) unit.delete(deleteExpiredKeys(scope, keys, now));
    },
    claimKeys: (claims, now, expiresAt) => unit.insert(idempotencyRecordTable, idempotencyRows(claims, now, expiresAt)),
    ensureAgents: (agents, at) => unit.insert(agentTable, agentRows(agents, at)),
    insertEvents: (events) => unit.insert(businessEventTable, businessEventRows(events)),
    insertMemories(memories, history) {
      unit.insert(memoryTable, memoryRows(memories));
      unit.insert(memoryHistoryTable, historyRows(history));
    },
    moveWorkflows(moves) {
      const replaced = replacedWorkflowStates(moves);
      if (replaced) unit.delete(replaced);
      unit.insert(workflowStateTable, workflowStateRows(moves.map((move) => move.state)));
    },
  };
}
