import type { OrganizationRepository } from "../../domain/access/ports";
import type { OrganizationRecord, Plan, WriteMode } from "../../domain/access/records";
import { newId } from "../../domain/kernel/ids";
import type { PrismaTx } from "../prisma";
import type { Table } from "../sql";

/** Created through the ORM only; described for the tables whose batch rows refer to it. */
export const organizationTable: Table = {
  name: "Organization",
  columns: ["id", "name", "plan", "founderWorkspace", "writeMode", "environmentsEnabled", "createdAt"],
  references: [],
};

type OrganizationRow = Awaited<ReturnType<PrismaTx["organization"]["findUniqueOrThrow"]>>;

function toRecord(row: OrganizationRow): OrganizationRecord {
  return { ...row, plan: row.plan as Plan, writeMode: row.writeMode as WriteMode };
}

export function organizationRepository(db: PrismaTx): OrganizationRepository {
  return {
    async create(input) {
      return toRecord(await db.organization.create({ data: { id: newId("org"), ...input } }));
    },
    async find(id) {
      const row = await db.organization.findUnique({ where: { id } });
      return row ? toRecord(row) : null;
    },
    async list() {
      return (await db.organization.findMany({ orderBy: { createdAt: "asc" } })).map(toRecord);
    },
    count() {
      return db.organization.count();
    },
    async updateWriteMode(id, writeMode) {
      return toRecord(await db.organization.update({ where: { id }, data: { writeMode } }));
    },
    async rename(id, name) {
      return toRecord(await db.organization.update({ where: { id }, data: { name } }));
    },
    async lock(id) {
      // A write to the row locks it on Postgres; on SQLite any write takes the database's one write lock.
      await db.$executeRaw`UPDATE "Organization" SET "name" = "name" WHERE "id" = ${id}`;
    },
  };
}
