import type { TEnvironment } from "@engram/contract";
import type { EventRepository } from "../../domain/events/ports";
import type { BusinessEventRecord, KeySource } from "../../domain/events/records";
import type { PrismaTx } from "../prisma";
import { rowsPast } from "../page-where";
import { columnList, join, type Row, sql, type Table } from "../sql";
import { prismaReads, type SqlReads } from "../sql-reads";
import { organizationTable } from "./organizations";

const EVENT_COLUMNS = [
  "id", "orgId", "environment", "type", "text", "source", "subject", "metadata", "idempotencyKey", "keySource", "triageRule", "effectsSuppressed",
  "tokenId", "requestId", "receivedAt", "response",
] as const;
type EventColumn = (typeof EVENT_COLUMNS)[number];

/** A key already taken in the event's environment fails the insert, and with it the batch (DuplicateKeyError). */
export const businessEventTable: Table<EventColumn> = { name: "BusinessEvent", columns: EVENT_COLUMNS, references: [organizationTable] };

/** Each event with the answer its ingestion gave, repeated to every resend. */
export function businessEventRows(events: ReadonlyArray<{ event: BusinessEventRecord; answer: unknown }>): Row<EventColumn>[] {
  return events.map(({ event, answer }) => ({ ...event, metadata: event.metadata === null ? null : JSON.stringify(event.metadata), response: JSON.stringify(answer) }));
}

type EventRow = Omit<BusinessEventRecord, "environment" | "keySource" | "metadata" | "effectsSuppressed" | "receivedAt"> & {
  environment: string;
  keySource: string;
  metadata: string | null;
  effectsSuppressed: unknown;
  receivedAt: Date | string;
};

function eventRecord(row: EventRow): BusinessEventRecord {
  return {
    id: row.id,
    orgId: row.orgId,
    environment: row.environment as TEnvironment,
    type: row.type,
    text: row.text,
    source: row.source,
    subject: row.subject,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    idempotencyKey: row.idempotencyKey,
    keySource: row.keySource as KeySource,
    triageRule: row.triageRule,
    // Raw reads give SQLite's 0/1 as a number.
    effectsSuppressed: Boolean(row.effectsSuppressed),
    tokenId: row.tokenId,
    requestId: row.requestId,
    receivedAt: new Date(row.receivedAt),
  };
}

/** `reads` serves the key lookup of every event batch (outside a transaction: the driver's own statements). */
export function eventRepository(db: PrismaTx, reads: SqlReads = prismaReads(db)): EventRepository {
  return {
    async find(id) {
      const row = await db.businessEvent.findUnique({ where: { id } });
      return row ? eventRecord(row) : null;
    },
    async findMany(ids) {
      if (ids.length === 0) return [];
      return (await db.businessEvent.findMany({ where: { id: { in: [...ids] } } })).map(eventRecord);
    },
    async listNewest(scope, type, before, limit) {
      const rows = await db.businessEvent.findMany({
        where: {
          orgId: scope.orgId,
          environment: scope.environment,
          ...(type === null ? {} : { type }),
          ...rowsPast(before, "desc", { time: "receivedAt", id: "id" }),
        },
        orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return rows.map(eventRecord);
    },
    async findByKeys({ orgId, environment }, keys) {
      if (keys.length === 0) return [];
      // On the batched ingestion path: plain SQL on the driver, as the ORM's per-query cost dominates there.
      const rows = await reads.rows<EventRow & { response: string | null }>(
        sql`SELECT ${columnList(EVENT_COLUMNS)} FROM "BusinessEvent"
          WHERE "orgId" = ${orgId} AND "environment" = ${environment} AND "idempotencyKey" IN (${join([...keys])})`,
      );
      // Events stored before answers were kept: their answer is rebuilt, which needs their candidates.
      const unanswered = rows.filter((row) => row.response === null).map((row) => row.id);
      const candidates = unanswered.length === 0 ? [] : await db.memory.findMany({ where: { eventId: { in: unanswered } }, select: { id: true, eventId: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
      return rows.map((row) => ({
        event: eventRecord(row),
        answer: row.response === null ? null : JSON.parse(row.response),
        candidateIds: candidates.filter((memory) => memory.eventId === row.id).map((memory) => memory.id),
      }));
    },
    async countByType(orgId) {
      const groups = await db.businessEvent.groupBy({
        by: ["environment", "type", "triageRule"],
        where: { orgId },
        _count: { _all: true },
        orderBy: [{ environment: "asc" }, { type: "asc" }],
      });
      return groups.map((group) => ({
        environment: group.environment as TEnvironment,
        type: group.type,
        known: group.triageRule !== null,
        count: group._count._all,
      }));
    },
  };
}
