import { ZEnvironment } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import type { Store } from "../store";
import type { ReflectionScope } from "./records";
import type { ReflectionRunner } from "./runner";
import { settingsFrom } from "./settings";

export interface SchedulerOptions {
  clock: Clock;
  /** How often it looks for abandoned runs and scopes whose interval has passed. */
  tickMs: number;
  /** Runs this process works on at once; a tick starts or takes over no more than the free places. */
  concurrency?: number;
  /** False: only takes over abandoned runs (a person's run whose process died), starts none on schedule. */
  startDue?: boolean;
  /** Told about a tick that failed; the next tick tries again. */
  onError?: (error: unknown) => void;
}

export const DEFAULT_SCHEDULER_CONCURRENCY = 2;

export interface TickResult {
  recovered: number;
  started: ReflectionScope[];
}

/**
 * Starts reflection per organization and environment when its interval has passed, and takes over runs whose
 * process died. Several server processes may run one each: the database admits one running run per scope, so
 * a start another process won first is simply skipped.
 */
export function reflectionScheduler(store: Store, runner: ReflectionRunner, options: SchedulerOptions) {
  const concurrency = options.concurrency ?? DEFAULT_SCHEDULER_CONCURRENCY;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<unknown> | undefined;
  let stopped = false;

  /** Reflection has nothing to do in a scope without candidates or durable memories (each a read of one index entry). */
  async function hasWork(scope: ReflectionScope): Promise<boolean> {
    for (const state of ["durable", "candidate"] as const) {
      if ((await store.reflection().memories.page(scope, [state], null, 1)).length > 0) return true;
    }
    return false;
  }

  async function startDue(free: number): Promise<ReflectionScope[]> {
    const started: ReflectionScope[] = [];
    const now = options.clock().getTime();
    for (const org of await store.organizations.list()) {
      const settings = settingsFrom((await store.reflectionSettings.find(org.id))?.settings);
      if (!settings.enabled) continue;
      for (const environment of ZEnvironment.options) {
        const scope = { orgId: org.id, environment };
        const last = await store.reflectionRuns.lastStarted(scope);
        if (last && now - last.getTime() < settings.intervalMinutes * 60_000) continue;
        if (!(await hasWork(scope))) continue;
        try {
          await runner.start(scope, "schedule", null);
        } catch (error) {
          // Another process started it first.
          if (error instanceof AppError && error.code === "run_in_progress") continue;
          throw error;
        }
        started.push(scope);
        if (started.length >= free) return started;
      }
    }
    return started;
  }

  async function tick(): Promise<TickResult> {
    let free = concurrency - runner.active();
    const recovered = free > 0 ? await runner.recover(free) : 0;
    free -= recovered;
    const started = free > 0 && options.startDue !== false ? await startDue(free) : [];
    return { recovered, started };
  }

  function schedule(): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      ticking = tick()
        .catch((error) => options.onError?.(error))
        .finally(schedule);
    }, options.tickMs);
    timer.unref();
  }

  return {
    /** One pass: takes over abandoned runs, then starts the due scopes, within the free places. */
    tick,
    /** Ticks every `tickMs` (the first after one interval), each after the last has ended. */
    start(): void {
      stopped = false;
      if (!timer) schedule();
    },
    /** Stops ticking and waits for a tick in progress; runs already started go on (the runner stops those). */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await ticking;
    },
  };
}

export type ReflectionScheduler = ReturnType<typeof reflectionScheduler>;
