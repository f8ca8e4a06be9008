import { newId } from "../../domain/kernel/ids";
import type { SessionRepository } from "../../domain/people/ports";
import type { SessionRecord } from "../../domain/people/records";
import type { Dialect } from "../dialect";
import type { PrismaTx } from "../prisma";
import { sql } from "../sql";

type SessionRow = Awaited<ReturnType<PrismaTx["session"]["findUniqueOrThrow"]>>;

const toRecord = ({ secretHash: _hash, ...session }: SessionRow): SessionRecord => session;

export function sessionRepository(db: PrismaTx, dialect: Dialect): SessionRepository {
  return {
    async create(session) {
      return toRecord(await db.session.create({ data: { id: newId("ses"), ...session, lastSeenAt: session.createdAt } }));
    },
    async findBySecretHash(secretHash) {
      const row = await db.session.findUnique({ where: { secretHash } });
      return row ? toRecord(row) : null;
    },
    async touch(id, at) {
      await db.session.updateMany({ where: { id, lastSeenAt: { lt: at } }, data: { lastSeenAt: at } });
    },
    async setActiveOrg(id, orgId) {
      await db.session.updateMany({ where: { id }, data: { activeOrgId: orgId } });
    },
    async delete(id) {
      await db.session.deleteMany({ where: { id } });
    },
    async deleteForUser(userId) {
      const { count } = await db.session.deleteMany({ where: { userId } });
      return count;
    },
    async deleteLeastRecent(userId, { sessionId, keep, limit }) {
      const where = { userId, id: { not: sessionId } };
      const past = await db.session.findMany({ where, orderBy: [{ lastSeenAt: "desc" }, { id: "desc" }], skip: keep, take: limit, select: { id: true } });
      if (!past.length) return 0;
      const { count } = await db.session.deleteMany({ where: { id: { in: past.map((session) => session.id) } } });
      return count;
    },
    deleteExpired: (now, idleBefore, limit) => db.$executeRaw(dialect.deleteSome("Session", sql`"expiresAt" <= ${now} OR "lastSeenAt" <= ${idleBefore}`, limit)),
  };
}
