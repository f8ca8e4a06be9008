import type { TEnvironment, TScope } from "@engram/contract";
import type { TokenRepository } from "../../domain/access/ports";
import type { Plan, TokenRecord, WriteMode } from "../../domain/access/records";
import { newId } from "../../domain/kernel/ids";
import { rowsPast } from "../page-where";
import type { PrismaTx } from "../prisma";

type TokenRow = Awaited<ReturnType<PrismaTx["accessToken"]["findUniqueOrThrow"]>>;

function toRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    orgId: row.orgId,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes.split(" ").filter(Boolean) as TScope[],
    environment: row.environment as TEnvironment | null,
    agentSlugs: row.agentSlugs === null ? null : (JSON.parse(row.agentSlugs) as string[]),
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

export function tokenRepository(db: PrismaTx): TokenRepository {
  return {
    async create(token) {
      const row = await db.accessToken.create({
        data: {
          id: newId("tok"),
          orgId: token.orgId,
          name: token.name,
          tokenHash: token.tokenHash,
          prefix: token.prefix,
          scopes: token.scopes.join(" "),
          environment: token.environment,
          agentSlugs: token.agentSlugs === null ? null : JSON.stringify(token.agentSlugs),
        },
      });
      return toRecord(row);
    },
    async findActiveByHash(tokenHash) {
      // Every request runs this: one indexed join in plain SQL, not two ORM reads.
      const [row] = await db.$queryRaw<Array<TokenRow & { environmentsEnabled: unknown; writeMode: string; plan: string }>>`
        SELECT t."id", t."orgId", t."name", t."tokenHash", t."prefix", t."scopes", t."environment", t."agentSlugs",
               t."createdAt", t."revokedAt", o."environmentsEnabled", o."writeMode", o."plan"
        FROM "AccessToken" t JOIN "Organization" o ON o."id" = t."orgId"
        WHERE t."tokenHash" = ${tokenHash} AND t."revokedAt" IS NULL`;
      if (!row) return null;
      return {
        token: toRecord(row),
        // SQLite hands booleans back as integers.
        org: { environmentsEnabled: Boolean(Number(row.environmentsEnabled)), writeMode: row.writeMode as WriteMode, plan: row.plan as Plan },
      };
    },
    async list(orgId, page) {
      const where = { orgId, ...rowsPast(page?.after ?? null, "asc") };
      return (await db.accessToken.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: page?.limit })).map(toRecord);
    },
    async revoke(id, at, orgId) {
      const where = orgId === undefined ? { id } : { id, orgId };
      const { count } = await db.accessToken.updateMany({ where: { ...where, revokedAt: null }, data: { revokedAt: at } });
      if (count > 0) return true;
      return (await db.accessToken.count({ where })) > 0;
    },
  };
}
