import { type TEnvironment, type TReflectionProcess, ZReflectionProcess, type ZReflectionAudit } from "@engram/contract";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { z } from "zod";
import { api, ok } from "../../api/client";
import { formatDateTime, formatNumber, humanize } from "../../ui/format";
import { QueryView } from "../../ui/query-view";
import { reflectionKeys } from "./run-now";
import { TableScroll } from "../../ui/table-scroll";
import { NextPageButton } from "../../ui/next-page-button";

type Audit = z.infer<typeof ZReflectionAudit>;

const POLL_MS = 2_000;
const statusBadge: Record<Audit["status"], string> = { running: "badge-warn", completed: "badge-ok", failed: "badge-danger" };
const triggers: Record<Audit["trigger"], string> = { schedule: "Schedule", person: "A person", cli: "Command line" };

function ProcessCounts({ counts }: { counts: Audit["counts"] }) {
  const done = ZReflectionProcess.options.filter((process): process is TReflectionProcess => counts[process] !== undefined);
  if (done.length === 0) return <span className="muted">None yet</span>;
  return (
    <ul className="process-counts">
      {done.map((process) => (
        <li key={process}>
          {humanize(process)}: {formatNumber(counts[process]!.examined)} examined, {formatNumber(counts[process]!.actions)} actions
        </li>
      ))}
    </ul>
  );
}

function AuditRow({ audit }: { audit: Audit }) {
  return (
    <tr>
      <th scope="row">{formatDateTime(audit.startedAt)}</th>
      <td>{triggers[audit.trigger]}</td>
      <td className="wrap-anywhere">{audit.triggeredBy ?? "—"}</td>
      <td>
        <span className={`badge ${statusBadge[audit.status]}`}>{humanize(audit.status)}</span>
      </td>
      <td>{formatDateTime(audit.finishedAt)}</td>
      <td>
        <ProcessCounts counts={audit.counts} />
      </td>
      <td>
        {audit.errors.length === 0 ? (
          <span className="muted">None</span>
        ) : (
          <ul className="process-counts">
            {audit.errors.map((error, index) => (
              <li key={index}>
                {humanize(error.process)}: {error.message}
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

/** One audit per run, newest first; read again every 2 s while the newest is still running. */
export function AuditsList({ environment }: { environment: TEnvironment }) {
  const queryClient = useQueryClient();
  const audits = useInfiniteQuery({
    queryKey: reflectionKeys(environment).audits,
    queryFn: ({ pageParam }) => ok(api.reflection.audits({ query: { environment, limit: 10, cursor: pageParam } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: (query) => (query.state.data?.pages[0]?.audits[0]?.status === "running" ? POLL_MS : false),
  });

  // When the newest run finishes, what it did shows in the events and the charts.
  const running = audits.data?.pages[0]?.audits[0]?.status === "running";
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) {
      const { events, metrics } = reflectionKeys(environment);
      void queryClient.invalidateQueries({ queryKey: events });
      void queryClient.invalidateQueries({ queryKey: metrics });
    }
    wasRunning.current = running;
  }, [running, environment, queryClient]);

  return (
    <QueryView
      query={audits}
      loading="Loading reflection runs…"
      isEmpty={(data) => data.pages[0]?.audits.length === 0}
      empty={<p>No runs in {humanize(environment)} yet. Runs start on the schedule, or with Run now.</p>}
    >
      {(data) => (
        <>
          <TableScroll label="Reflection runs">
            <table className="audits">
              <caption className="visually-hidden">Reflection runs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">By</th>
                  <th scope="col">Status</th>
                  <th scope="col">Finished</th>
                  <th scope="col">Processes</th>
                  <th scope="col">Errors</th>
                </tr>
              </thead>
              <tbody>
                {data.pages.flatMap((page) => page.audits).map((audit) => (
                  <AuditRow key={audit.id} audit={audit} />
                ))}
              </tbody>
            </table>
          </TableScroll>
          <NextPageButton query={audits} label="Load more runs" />
        </>
      )}
    </QueryView>
  );
}
