import type { TAssistantType, TCapabilityConfigs } from "@engram/contract";
import type { AssistantRepository } from "../../domain/assistants/ports";
import type { AssistantChangeRecord, AssistantRecord, AssistantSnapshot, ChangeAction } from "../../domain/assistants/records";
import { chunks } from "../../domain/kernel/chunks";
import { newId } from "../../domain/kernel/ids";
import { rowsPast } from "../page-where";
import type { PrismaTx } from "../prisma";

type AssistantRow = Awaited<ReturnType<PrismaTx["assistant"]["findUniqueOrThrow"]>>;

/** Ids one statement names at most: Prisma's SQLite driver binds fewer than a thousand values a statement. */
const IDS_PER_STATEMENT = 500;
/** Change rows one statement inserts, each a dozen values, within the same bound. */
const CHANGES_PER_STATEMENT = 50;

const changeRow = (change: Omit<AssistantChangeRecord, "id">) => ({
  ...change,
  id: newId("achg"),
  before: change.before === null ? null : JSON.stringify(change.before),
  after: JSON.stringify(change.after),
});
type ChangeRow = Awaited<ReturnType<PrismaTx["assistantChange"]["findUniqueOrThrow"]>>;

function toRecord(row: AssistantRow): AssistantRecord {
  return {
    ...row,
    type: row.type as TAssistantType,
    capabilities: JSON.parse(row.capabilities) as string[],
    capabilityConfigs: JSON.parse(row.capabilityConfigs) as TCapabilityConfigs,
  };
}

function toChange(row: ChangeRow): AssistantChangeRecord {
  return {
    ...row,
    action: row.action as ChangeAction,
    before: row.before === null ? null : (JSON.parse(row.before) as AssistantSnapshot),
    after: JSON.parse(row.after) as AssistantSnapshot,
  };
}

export function assistantRepository(db: PrismaTx): AssistantRepository {
  return {
    async create(assistant) {
      const row = await db.assistant.create({
        data: {
          ...assistant,
          id: newId("asst"),
          capabilities: JSON.stringify(assistant.capabilities),
          capabilityConfigs: JSON.stringify(assistant.capabilityConfigs),
          updatedAt: assistant.createdAt,
        },
      });
      return toRecord(row);
    },
    async find(orgId, id) {
      const row = await db.assistant.findFirst({ where: { id, orgId } });
      return row ? toRecord(row) : null;
    },
    async list(orgId, { visibleTo, page } = {}) {
      const visible = visibleTo === undefined ? {} : { AND: [{ OR: [{ type: "org_shared" }, { ownerUserId: visibleTo }] }] };
      const where = { orgId, ...rowsPast(page?.after ?? null, "asc"), ...visible };
      return (await db.assistant.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: page?.limit })).map(toRecord);
    },
    async update(orgId, id, expected, changes, at) {
      // The version check and the write are one statement: of two writers that read the same version, one wins.
      const { count } = await db.assistant.updateMany({
        where: { id, orgId, version: expected },
        data: {
          ...(changes.name === undefined ? {} : { name: changes.name }),
          ...(changes.capabilities === undefined ? {} : { capabilities: JSON.stringify(changes.capabilities) }),
          ...(changes.capabilityConfigs === undefined ? {} : { capabilityConfigs: JSON.stringify(changes.capabilityConfigs) }),
          version: expected + 1,
          updatedAt: at,
        },
      });
      if (count === 0) return null;
      const row = await db.assistant.findUnique({ where: { id } });
      return row ? toRecord(row) : null;
    },
    async delete(orgId, id, expected) {
      const { count } = await db.assistant.deleteMany({ where: { id, orgId, version: expected } });
      return count === 1;
    },
    countPersonal: (orgId, ownerUserId) => db.assistant.count({ where: { orgId, ownerUserId, type: "employee_personal" } }),
    async deletePersonal(orgId, ownerUserId) {
      const rows = await db.assistant.findMany({ where: { orgId, ownerUserId, type: "employee_personal" } });
      // By the ids read, so an assistant made meanwhile is not deleted unlogged; a statement names at most
      // IDS_PER_STATEMENT of them, within what the databases bind.
      for (const chunk of chunks(rows, IDS_PER_STATEMENT)) {
        await db.assistant.deleteMany({ where: { id: { in: chunk.map((row) => row.id) } } });
      }
      return rows.map(toRecord);
    },
    async appendChange(change) {
      return toChange(await db.assistantChange.create({ data: changeRow(change) }));
    },
    async appendChanges(changes) {
      for (const chunk of chunks(changes, CHANGES_PER_STATEMENT)) {
        await db.assistantChange.createMany({ data: chunk.map(changeRow) });
      }
    },
    async changes(orgId, assistantId, { beforeVersion, limit }) {
      const rows = await db.assistantChange.findMany({
        where: { orgId, assistantId, ...(beforeVersion === null ? {} : { version: { lt: beforeVersion } }) },
        orderBy: { version: "desc" },
        take: limit,
      });
      return rows.map(toChange);
    },
  };
}
