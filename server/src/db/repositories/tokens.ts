import { randomUUID } from "node:crypto";
import type { TEnvironment, TScope } from "@engram/contract";
import type { TokenRepository } from "../../domain/ports";
import type { TokenRecord } from "../../domain/records";
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
          id: `tok_${randomUUID().replaceAll("-", "")}`,
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
      const row = await db.accessToken.findUnique({ where: { tokenHash } });
      return row && row.revokedAt === null ? toRecord(row) : null;
    },
    async list(orgId) {
      return (await db.accessToken.findMany({ where: { orgId }, orderBy: { createdAt: "asc" } })).map(toRecord);
    },
    async revoke(id, at) {
      const { count } = await db.accessToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
      if (count > 0) return true;
      return (await db.accessToken.count({ where: { id } })) > 0;
    },
  };
}
