import { DuplicateKeyError } from "../../domain/kernel/errors";
import type { MembershipRepository, MemberView } from "../../domain/people/ports";
import type { Role } from "../../domain/people/records";
import { rowsPast } from "../page-where";
import { isUniqueViolation, type PrismaTx } from "../prisma";

const WITH_USER = { user: { select: { email: true, displayName: true } } } as const;

type MemberRow = Awaited<ReturnType<PrismaTx["membership"]["findUniqueOrThrow"]>> & { user: { email: string; displayName: string } };

const memberView = ({ user, ...row }: MemberRow): MemberView => ({ ...row, role: row.role as Role, email: user.email, displayName: user.displayName });

export function membershipRepository(db: PrismaTx): MembershipRepository {
  return {
    async add({ orgId, userId, role, at }) {
      try {
        const row = await db.membership.create({ data: { orgId, userId, role, createdAt: at } });
        return { ...row, role: row.role as Role };
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateKeyError("Membership");
        throw error;
      }
    },
    async find(orgId, userId) {
      const row = await db.membership.findUnique({ where: { orgId_userId: { orgId, userId } } });
      return row ? { ...row, role: row.role as Role } : null;
    },
    async ofUser(userId) {
      const rows = await db.membership.findMany({
        where: { userId },
        include: { org: { select: { name: true, plan: true } } },
        orderBy: [{ createdAt: "asc" }, { orgId: "asc" }],
      });
      return rows.map(({ org, ...row }) => ({ ...row, role: row.role as Role, orgName: org.name, plan: org.plan }));
    },
    async list(orgId, page) {
      const where = { orgId, ...rowsPast(page?.after ?? null, "asc", { time: "createdAt", id: "userId" }) };
      const rows = await db.membership.findMany({ where, include: WITH_USER, orderBy: [{ createdAt: "asc" }, { userId: "asc" }], take: page?.limit });
      return rows.map(memberView);
    },
    async view(orgId, userId) {
      const row = await db.membership.findUnique({ where: { orgId_userId: { orgId, userId } }, include: WITH_USER });
      return row ? memberView(row) : null;
    },
    countOwners(orgId) {
      return db.membership.count({ where: { orgId, role: "owner" } });
    },
    async changeRole(orgId, userId, from, to) {
      const { count } = await db.membership.updateMany({ where: { orgId, userId, role: from }, data: { role: to } });
      return count === 1;
    },
    async remove(orgId, userId) {
      const { count } = await db.membership.deleteMany({ where: { orgId, userId } });
      return count === 1;
    },
  };
}
