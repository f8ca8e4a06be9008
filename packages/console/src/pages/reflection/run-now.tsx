import type { TEnvironment } from "@engram/contract";
import { type UseMutationResult, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, ok } from "../../api/client";
import { ErrorMessage } from "../../ui/error-message";
import { humanize } from "../../ui/format";

type Started = { auditId: string; environment: TEnvironment };
export type RunNow = UseMutationResult<Started, Error, void>;

/** Query keys of what a run changes in an environment: its audits, events and metrics. */
export const reflectionKeys = (environment: TEnvironment) => ({
  audits: ["reflection-audits", environment] as const,
  events: ["reflection-events", environment] as const,
  metrics: ["metrics", environment] as const,
});

/** Starts a run in the current environment (202); the server refuses a second one while one runs (409). */
export function useRunNow(environment: TEnvironment): RunNow {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => ok(api.reflection.run({ body: { environment } })),
    onSettled: () => {
      // A small environment's run may be over before the audits are read again: refresh what it changes too.
      const keys = reflectionKeys(environment);
      for (const queryKey of [keys.audits, keys.events, keys.metrics]) void queryClient.invalidateQueries({ queryKey });
    },
  });
}

export function RunNowButton({ run, canManage }: { run: RunNow; canManage: boolean }) {
  if (!canManage) return <p className="muted">Only owners and admins can start a run.</p>;
  return (
    <button type="button" className="button button-primary" onClick={() => run.mutate()} disabled={run.isPending}>
      {run.isPending ? "Starting…" : "Run now"}
    </button>
  );
}

/** What became of the last press of Run now: the start, or the server's refusal (one run at a time). */
export function RunNowResult({ run }: { run: RunNow }) {
  if (run.isError) return <ErrorMessage error={run.error} />;
  if (run.isSuccess) {
    return (
      <p className="notice" role="status">
        Reflection started in {humanize(run.data.environment)}. The runs below refresh until it finishes.
      </p>
    );
  }
  return null;
}
