import type { ReflectionRunRecord, ReflectionScope } from "../domain/reflection/records";
import { settingsFrom } from "../domain/reflection/settings";
import { type AdminContext, type AdminOptions, environmentOption, existingOrg } from "./admin";

const RECENT_AUDITS = 5;

async function scopeOf(context: AdminContext, options: AdminOptions): Promise<ReflectionScope> {
  return { orgId: await existingOrg(context, options), environment: environmentOption(options.environment, "production")! };
}

/** `examined N  actions M` per process, in run order; processes without counts are off or not reached. */
async function processLines({ services }: AdminContext, run: ReflectionRunRecord): Promise<string[]> {
  const settings = settingsFrom((await services.store.reflectionSettings.find(run.orgId))?.settings);
  return services.reflectionRunner.processNames().map((name) => {
    const counts = run.counts[name];
    if (counts) return `${name}\texamined ${counts.examined}\tactions ${counts.actions}`;
    return `${name}\t${settings.processes[name].enabled ? "not run" : "off"}`;
  });
}

const seconds = (run: ReflectionRunRecord) => (run.finishedAt ? ` in ${((run.finishedAt.getTime() - run.startedAt.getTime()) / 1000).toFixed(1)} s` : "");

/** Runs reflection over the scope in this process, to the end, and prints its audit. */
export async function runReflection(context: AdminContext, options: AdminOptions): Promise<void> {
  const { services, out } = context;
  const scope = await scopeOf(context, options);
  const started = await services.reflectionRunner.start(scope, "cli", "cli");
  await services.reflectionRunner.idle();
  const run = (await services.store.reflectionRuns.find(scope, started.id))!;
  out(`reflection run ${run.id} over ${scope.orgId} ${scope.environment}: ${run.status}${seconds(run)}`);
  for (const line of await processLines(context, run)) out(line);
  for (const error of run.errors) out(`error\t${error.process}\t${error.message}`);
  if (run.status === "failed") throw new Error(`reflection run ${run.id} failed`);
}

/** Whether a run is in progress in the scope, and its last audits (actions/examined per process). */
export async function reflectionStatus(context: AdminContext, options: AdminOptions): Promise<void> {
  const { services, out } = context;
  const scope = await scopeOf(context, options);
  const running = await services.store.reflectionRuns.running(scope);
  const now = new Date();
  if (!running) out(`${scope.orgId} ${scope.environment}: no run in progress`);
  else {
    const lease = running.leaseExpiresAt && running.leaseExpiresAt < now ? `; its process stopped at ${running.leaseExpiresAt.toISOString()}, a server takes it over` : "";
    out(`${scope.orgId} ${scope.environment}: run ${running.id} in progress since ${running.startedAt.toISOString()} (${running.trigger})${lease}`);
  }
  const runs = await services.store.reflectionRuns.list(scope, null, RECENT_AUDITS);
  for (const run of runs) {
    const counts = services.reflectionRunner
      .processNames()
      .flatMap((name) => (run.counts[name] ? [`${name} ${run.counts[name].actions}/${run.counts[name].examined}`] : []))
      .join(", ");
    const by = run.triggeredBy ? ` by ${run.triggeredBy}` : "";
    out(`${run.id}\t${run.status}\t${run.trigger}${by}\t${run.startedAt.toISOString()}\t${run.finishedAt?.toISOString() ?? "-"}\t${counts || "-"}`);
    for (const error of run.errors) out(`\terror\t${error.process}\t${error.message}`);
  }
  if (runs.length === 0) out("no runs yet");
}
