import { randomUUID } from "node:crypto";
import { DuplicateKeyError } from "../domain/errors";
import type { WriteBatch } from "../domain/ports";
import { Prisma } from "./generated/sqlite/client.ts";
import { isUniqueViolation, type PrismaDb } from "./prisma";
import { idempotencyRow } from "./repositories/idempotency";
import { SEARCH_VERSION, searchTextOf } from "./search-text";
import { insertStatements } from "./sql";

const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "")}`;

const columns = {
  IdempotencyRecord: ["id", "orgId", "environment", "route", "key", "requestHash", "status", "responseBody", "createdAt", "expiresAt"],
  BusinessEvent: ["id", "orgId", "environment", "type", "text", "source", "subject", "metadata", "idempotencyKey", "keySource", "triageRule", "effectsSuppressed", "tokenId", "requestId", "receivedAt"],
  Memory: ["id", "orgId", "environment", "agentSlug", "text", "subject", "memoryKind", "confidence", "state", "source", "sourceRequestId", "sourceTokenId", "sourceActor", "idempotencyKey", "eventId", "searchText", "searchVersion", "recentUses", "reinforcementCount", "createdAt", "updatedAt"],
  MemoryHistory: ["id", "memoryId", "action", "fromState", "toState", "actor", "tokenId", "reason", "requestId", "createdAt"],
  WorkflowState: ["id", "orgId", "environment", "workflow", "subject", "track", "state", "details", "lastEventId", "createdAt", "updatedAt"],
} as const;

/**
 * Runs the statements a batch queues as one transaction of multi-row statements, sent together
 * (Prisma's array transaction costs about half of an interactive one per statement). A key that is
 * already taken makes the whole batch roll back with DuplicateKeyError.
 */
export async function writeAtomically(prisma: PrismaDb, build: (batch: WriteBatch) => void): Promise<void> {
  const statements: Prisma.Sql[] = [];
  const insert = (table: keyof typeof columns, rows: Array<Record<string, unknown>>, suffix = "") => {
    if (rows.length > 0) statements.push(...insertStatements(table, columns[table], rows, suffix));
  };

  build({
    deleteExpiredKeys(scope, keys, now) {
      if (keys.length === 0) return;
      statements.push(Prisma.sql`DELETE FROM "IdempotencyRecord" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}
        AND "route" = ${scope.route} AND "key" IN (${Prisma.join([...keys])}) AND "expiresAt" <= ${now}`);
    },
    claimKeys(claims, now, expiresAt) {
      insert("IdempotencyRecord", claims.map(({ scope, response }) => idempotencyRow(scope, response, now, expiresAt)));
    },
    insertEvents(events) {
      insert("BusinessEvent", events.map((event) => ({ ...event, metadata: event.metadata === null ? null : JSON.stringify(event.metadata) })));
    },
    insertMemories(memories, history) {
      insert(
        "Memory",
        memories.map((memory) => ({ ...memory, searchText: searchTextOf(memory), searchVersion: SEARCH_VERSION, recentUses: JSON.stringify([memory.createdAt]), reinforcementCount: 0, updatedAt: memory.createdAt })),
      );
      insert("MemoryHistory", history.map((entry) => ({ ...entry, id: newId("mhe") })));
    },
    upsertWorkflows(states) {
      // On conflict only the moving parts change; the row keeps its id and createdAt.
      insert(
        "WorkflowState",
        states.map((state) => ({ ...state, id: newId("wfs"), details: JSON.stringify(state.details), createdAt: state.updatedAt })),
        `ON CONFLICT ("orgId", "environment", "workflow", "subject", "track") DO UPDATE SET "state" = excluded."state",
         "details" = excluded."details", "lastEventId" = excluded."lastEventId", "updatedAt" = excluded."updatedAt"`,
      );
    },
  });

  if (statements.length === 0) return;
  try {
    await prisma.$transaction(statements.map((statement) => prisma.$executeRaw(statement)));
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError("batch write");
    throw error;
  }
}
