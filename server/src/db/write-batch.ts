import { DuplicateKeyError } from "../domain/kernel/errors";
import { newId } from "../domain/kernel/ids";
import type { WriteBatch } from "../domain/writes/ports";
import { Prisma } from "./generated/sqlite/client.ts";
import { isUniqueViolation, type PrismaDb } from "./prisma";
import { idempotencyRow } from "./repositories/idempotency";
import { SEARCH_VERSION, searchTextOf } from "./search-text";
import { insertStatements, type Row } from "./sql";

/** Tables in the order their rows are inserted, parents before the rows that refer to them. */
const tables = {
  IdempotencyRecord: { columns: ["id", "orgId", "environment", "route", "key", "requestHash", "status", "responseBody", "createdAt", "expiresAt"], suffix: "" },
  Agent: { columns: ["id", "orgId", "slug", "createdAt"], suffix: `ON CONFLICT ("orgId", "slug") DO NOTHING` },
  BusinessEvent: {
    columns: ["id", "orgId", "environment", "type", "text", "source", "subject", "metadata", "idempotencyKey", "keySource", "triageRule", "effectsSuppressed", "tokenId", "requestId", "receivedAt", "response"],
    suffix: "",
  },
  Memory: {
    columns: ["id", "orgId", "environment", "agentSlug", "text", "subject", "memoryKind", "confidence", "state", "source", "sourceRequestId", "sourceTokenId", "sourceActor", "idempotencyKey", "eventId", "searchText", "searchVersion", "recentUses", "reinforcementCount", "createdAt", "updatedAt"],
    suffix: "",
  },
  MemoryHistory: { columns: ["id", "memoryId", "action", "fromState", "toState", "actor", "tokenId", "reason", "requestId", "createdAt"], suffix: "" },
  // On conflict only the moving parts change; the row keeps its id and createdAt.
  WorkflowState: {
    columns: ["id", "orgId", "environment", "workflow", "subject", "track", "state", "details", "lastEventId", "createdAt", "updatedAt"],
    suffix: `ON CONFLICT ("orgId", "environment", "workflow", "subject", "track") DO UPDATE SET "state" = excluded."state",
      "details" = excluded."details", "lastEventId" = excluded."lastEventId", "updatedAt" = excluded."updatedAt"`,
  },
} as const;

/**
 * Runs everything a batch queues as one transaction of multi-row statements, one per table, sent
 * together (Prisma's array transaction costs about half of an interactive one per statement). A key
 * that is already taken makes the whole batch roll back with DuplicateKeyError.
 */
export async function writeAtomically(prisma: PrismaDb, build: (batch: WriteBatch) => void): Promise<void> {
  const deletes: Prisma.Sql[] = [];
  const rows = Object.fromEntries(Object.keys(tables).map((table) => [table, [] as Row[]])) as Record<keyof typeof tables, Row[]>;

  build({
    deleteExpiredKeys(scope, keys, now) {
      if (keys.length === 0) return;
      deletes.push(Prisma.sql`DELETE FROM "IdempotencyRecord" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}
        AND "route" = ${scope.route} AND "key" IN (${Prisma.join([...keys])}) AND "expiresAt" <= ${now}`);
    },
    claimKeys(claims, now, expiresAt) {
      rows.IdempotencyRecord.push(...claims.map(({ scope, response }) => idempotencyRow(scope, response, now, expiresAt)));
    },
    ensureAgents(agents, at) {
      rows.Agent.push(...agents.map(({ orgId, slug }) => ({ id: newId("agt"), orgId, slug, createdAt: at })));
    },
    insertEvents(events) {
      rows.BusinessEvent.push(
        ...events.map(({ event, answer }) => ({ ...event, metadata: event.metadata === null ? null : JSON.stringify(event.metadata), response: JSON.stringify(answer) })),
      );
    },
    insertMemories(memories, history) {
      rows.Memory.push(
        ...memories.map((memory) => ({
          ...memory,
          searchText: searchTextOf(memory),
          searchVersion: SEARCH_VERSION,
          recentUses: JSON.stringify([memory.createdAt]),
          reinforcementCount: 0,
          updatedAt: memory.createdAt,
        })),
      );
      rows.MemoryHistory.push(...history.map((entry) => ({ ...entry, id: newId("mhe") })));
    },
    upsertWorkflows(states) {
      rows.WorkflowState.push(...states.map((state) => ({ ...state, id: newId("wfs"), details: JSON.stringify(state.details), createdAt: state.updatedAt })));
    },
  });

  const statements = [
    ...deletes,
    ...(Object.keys(tables) as Array<keyof typeof tables>).flatMap((table) =>
      rows[table].length > 0 ? insertStatements(table, tables[table].columns, rows[table], tables[table].suffix) : [],
    ),
  ];
  if (statements.length === 0) return;
  try {
    await prisma.$transaction(statements.map((statement) => prisma.$executeRaw(statement)));
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError("batch write");
    throw error;
  }
}
