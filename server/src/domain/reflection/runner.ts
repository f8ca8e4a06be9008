import { randomUUID } from "node:crypto";
import type { TReflectionProcess } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import type { Store } from "../store";
import { reflectionContext } from "./context";
import type { ReflectionProcess } from "./process";
import type { ProcessCounts, ReflectionRunRecord, ReflectionScope, RunTrigger } from "./records";
import { settingsFrom } from "./settings";

export interface RunnerOptions {
  clock: Clock;
  /** The processes in the order a run goes through them. */
  processes: readonly ReflectionProcess[];
  /** How long a run's lease lasts without renewal; another process takes over a run whose lease passed. */
  leaseMs?: number;
  /** Told about a run that failed (its audit records the error too). */
  onError?: (error: unknown, run: ReflectionRunRecord) => void;
}

export const DEFAULT_LEASE_MS = 60_000;

/** Raised from a process's pause to end its run early; the run is not failed but handed over. */
class RunInterrupted extends Error {}

/**
 * Runs reflection over one scope at a time under a lease in the database: one running run per organization
 * and environment (a second start is refused), each process's progress saved as it finishes, the lease renewed
 * while working. A run whose process died keeps its row "running" until the lease passes; then any process
 * takes it over and goes on from the first unfinished process. A runner that stops, or finds its lease taken,
 * ends its runs at their next batch (the process's `pause`); an unfinished process is redone, which changes
 * nothing it already changed.
 */
export function reflectionRunner(store: Store, options: RunnerOptions) {
  const owner = `runner_${randomUUID()}`;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const leaseUntil = () => new Date(options.clock().getTime() + leaseMs);
  const inFlight = new Set<Promise<void>>();
  let stopping = false;

  /** Ends the lease now, so that any process takes the run over at once and redoes the unfinished process. */
  const handOver = (run: ReflectionRunRecord) => store.reflectionRuns.renew(run.id, owner, options.clock());

  async function work(run: ReflectionRunRecord): Promise<void> {
    const scope: ReflectionScope = { orgId: run.orgId, environment: run.environment };
    const settings = settingsFrom((await store.reflectionSettings.find(run.orgId))?.settings);
    const counts: ProcessCounts = { ...run.counts };
    const errors = [...run.errors];
    const done = [...run.progress.done];
    let status: "completed" | "failed" = "completed";
    for (const process of options.processes) {
      if (done.includes(process.name)) continue;
      if (stopping) {
        await handOver(run);
        return;
      }
      if (!settings.processes[process.name].enabled) {
        done.push(process.name);
        continue;
      }
      if (!(await store.reflectionRuns.renew(run.id, owner, leaseUntil()))) return; // taken over: the other process finishes it
      let lost = false;
      const renewal = setInterval(() => {
        store.reflectionRuns.renew(run.id, owner, leaseUntil()).then(
          (held) => (lost ||= !held),
          () => undefined,
        );
      }, leaseMs / 3);
      const context = reflectionContext(store, { scope, runId: run.id, settings, clock: options.clock });
      // Between batches the run ends early when this process stops or another took the run over.
      const pause = async () => {
        await context.pause();
        if (stopping || lost) throw new RunInterrupted();
      };
      let interrupted = false;
      try {
        counts[process.name] = await process.run({ ...context, pause });
      } catch (error) {
        if (error instanceof RunInterrupted) interrupted = true;
        else {
          status = "failed";
          errors.push({ process: process.name, message: error instanceof Error ? error.message : String(error) });
          options.onError?.(error, run);
        }
      } finally {
        clearInterval(renewal);
      }
      if (interrupted) {
        if (!lost) await handOver(run);
        return;
      }
      done.push(process.name);
      if (!(await store.reflectionRuns.saveProgress(run.id, owner, counts, { done }, errors))) return;
      if (status === "failed") break;
    }
    await store.reflectionRuns.finish(run.id, owner, status, options.clock());
  }

  function track(run: ReflectionRunRecord): void {
    const running: Promise<void> = work(run)
      .catch((error) => options.onError?.(error, run))
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  }

  return {
    owner,
    /** Starts a run in the background and answers its audit; 409 while one is running in the scope. */
    async start(scope: ReflectionScope, trigger: RunTrigger, triggeredBy: string | null): Promise<ReflectionRunRecord> {
      if (stopping) throw new AppError("service_unavailable", "This server is shutting down; start the run again in a moment.");
      const run = await store.reflectionRuns.start(scope, { trigger, triggeredBy, owner, leaseUntil: leaseUntil(), at: options.clock() });
      if (!run) throw new AppError("run_in_progress", `A reflection run is already in progress for ${scope.environment}; its audit shows when it ends.`);
      track(run);
      return run;
    },
    /** Takes over runs whose process died (their lease passed), at most `limit` of them. */
    async recover(limit = 1): Promise<number> {
      let taken = 0;
      while (taken < limit && !stopping) {
        const run = await store.reflectionRuns.takeOverExpired(owner, options.clock(), leaseUntil());
        if (!run) break;
        track(run);
        taken++;
      }
      return taken;
    },
    /** Runs this process is working on now. */
    active: (): number => inFlight.size,
    /**
     * Starts no more runs and ends those in flight at their next batch, handing each over (its lease ended)
     * to whichever process takes it over next; wait for them with `idle`.
     */
    stop(): void {
      stopping = true;
    },
    /** Resolves once every run this process is working on has stopped. */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    processNames: (): TReflectionProcess[] => options.processes.map((process) => process.name),
  };
}

export type ReflectionRunner = ReturnType<typeof reflectionRunner>;
