import type { TEnvironment } from "@engram/contract";
import { newId } from "../../../domain/kernel/ids";
import type { ReflectionRunRepository } from "../../../domain/reflection/ports";
import type { ReflectionRunRecord, RunStatus, RunTrigger } from "../../../domain/reflection/records";
import { isUniqueViolation, type PrismaTx } from "../../prisma";
import { rowsPast } from "../../page-where";

type RunRow = Awaited<ReturnType<PrismaTx["reflectionRun"]["findUniqueOrThrow"]>>;

function toRecord(row: RunRow): ReflectionRunRecord {
  return {
    ...row,
    environment: row.environment as TEnvironment,
    trigger: row.trigger as RunTrigger,
    status: row.status as RunStatus,
    counts: JSON.parse(row.counts) as ReflectionRunRecord["counts"],
    errors: JSON.parse(row.errors) as ReflectionRunRecord["errors"],
    progress: JSON.parse(row.progress) as ReflectionRunRecord["progress"],
  };
}

export function reflectionRunRepository(db: PrismaTx): ReflectionRunRepository {
  const held = (id: string, owner: string) => ({ id, status: "running", leaseOwner: owner });
  return {
    async start(scope, run) {
      try {
        const row = await db.reflectionRun.create({
          data: {
            id: newId("rfr"),
            orgId: scope.orgId,
            environment: scope.environment,
            trigger: run.trigger,
            triggeredBy: run.triggeredBy,
            status: "running",
            startedAt: run.at,
            counts: "{}",
            errors: "[]",
            progress: JSON.stringify({ done: [] }),
            leaseOwner: run.owner,
            leaseExpiresAt: run.leaseUntil,
          },
        });
        return toRecord(row);
      } catch (error) {
        // The one-running index: a run is already going in this scope.
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },
    async takeOverExpired(owner, now, leaseUntil) {
      const expired = await db.reflectionRun.findFirst({ where: { status: "running", leaseExpiresAt: { lt: now } }, orderBy: { startedAt: "asc" } });
      if (!expired) return null;
      // Compare-and-set on the lease seen: of several processes taking over, one wins.
      const { count } = await db.reflectionRun.updateMany({
        where: { id: expired.id, status: "running", leaseOwner: expired.leaseOwner, leaseExpiresAt: expired.leaseExpiresAt },
        data: { leaseOwner: owner, leaseExpiresAt: leaseUntil },
      });
      return count === 1 ? toRecord({ ...expired, leaseOwner: owner, leaseExpiresAt: leaseUntil }) : null;
    },
    async renew(runId, owner, leaseUntil) {
      const { count } = await db.reflectionRun.updateMany({ where: held(runId, owner), data: { leaseExpiresAt: leaseUntil } });
      return count === 1;
    },
    async saveProgress(runId, owner, counts, progress, errors) {
      const { count } = await db.reflectionRun.updateMany({
        where: held(runId, owner),
        data: { counts: JSON.stringify(counts), progress: JSON.stringify(progress), errors: JSON.stringify(errors) },
      });
      return count === 1;
    },
    async finish(runId, owner, status, at) {
      const { count } = await db.reflectionRun.updateMany({ where: held(runId, owner), data: { status, finishedAt: at, leaseOwner: null, leaseExpiresAt: null } });
      return count === 1;
    },
    async find(scope, runId) {
      const row = await db.reflectionRun.findFirst({ where: { id: runId, orgId: scope.orgId, environment: scope.environment } });
      return row ? toRecord(row) : null;
    },
    async running(scope) {
      const row = await db.reflectionRun.findFirst({ where: { orgId: scope.orgId, environment: scope.environment, status: "running" } });
      return row ? toRecord(row) : null;
    },
    async list(scope, before, limit) {
      const rows = await db.reflectionRun.findMany({
        where: {
          orgId: scope.orgId,
          environment: scope.environment,
          ...rowsPast(before, "desc", { time: "startedAt", id: "id" }),
        },
        orderBy: [{ startedAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return rows.map(toRecord);
    },
    async lastStarted(scope) {
      const row = await db.reflectionRun.findFirst({ where: { orgId: scope.orgId, environment: scope.environment }, orderBy: { startedAt: "desc" }, select: { startedAt: true } });
      return row?.startedAt ?? null;
    },
  };
}
