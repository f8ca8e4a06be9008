import { type TEnvironment, type TReflectionAction, type TReflectionProcess, ZReflectionAction, type ZReflectionEvent, ZReflectionProcess } from "@engram/contract";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link } from "react-router";
import type { z } from "zod";
import { api, ok } from "../../api/client";
import { formatDateTime, humanize } from "../../ui/format";
import { QueryView } from "../../ui/query-view";
import { reflectionKeys } from "./run-now";
import { TableScroll } from "../../ui/table-scroll";
import { NextPageButton } from "../../ui/next-page-button";

/** Activation refreshes are counted in each run's audit, not listed one by one, so filtering for them finds nothing. */
const listedActions = ZReflectionAction.options.filter((action) => action !== "activation_refreshed");

type ReflectionEvent = z.infer<typeof ZReflectionEvent>;

const PAGE_SIZE = 25;

/** Memory ids link to the memory's page; a related id may also be a workflow event's, shown as text. */
function MemoryRef({ id }: { id: string | null }) {
  if (!id) return <span className="muted">—</span>;
  if (!id.startsWith("mem_")) return <code className="wrap-anywhere">{id}</code>;
  return (
    <Link to={`/memories/${id}`} className="wrap-anywhere">
      {id}
    </Link>
  );
}

function EventRow({ event }: { event: ReflectionEvent }) {
  return (
    <tr>
      <th scope="row">{formatDateTime(event.createdAt)}</th>
      <td>{humanize(event.process)}</td>
      <td>{humanize(event.action)}</td>
      <td>
        <MemoryRef id={event.memoryId} />
      </td>
      <td>
        <MemoryRef id={event.relatedId} />
      </td>
      <td className="reflection-reason">
        {event.reason}
        {event.details ? (
          <details>
            <summary>Figures</summary>
            <pre>{JSON.stringify(event.details, null, 2)}</pre>
          </details>
        ) : null}
      </td>
    </tr>
  );
}

function Filter<T extends string>({ label, value, options, onChange }: { label: string; value: T | ""; options: readonly T[]; onChange(value: T | ""): void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as T | "")}>
        <option value="">All</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {humanize(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** What reflection did and why, newest first, filtered by process and action, a page at a time. */
export function ReflectionEvents({ environment }: { environment: TEnvironment }) {
  const [process, setProcess] = useState<TReflectionProcess | "">("");
  const [action, setAction] = useState<TReflectionAction | "">("");
  const events = useInfiniteQuery({
    queryKey: [...reflectionKeys(environment).events, process, action],
    queryFn: ({ pageParam }) =>
      ok(api.reflection.events({ query: { environment, limit: PAGE_SIZE, cursor: pageParam, process: process || undefined, action: action || undefined } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const filtered = process !== "" || action !== "";

  return (
    <>
      <div className="filters">
        <Filter<TReflectionProcess> label="Process" value={process} options={ZReflectionProcess.options} onChange={setProcess} />
        <Filter<TReflectionAction> label="Action" value={action} options={listedActions} onChange={setAction} />
      </div>
      <QueryView
        query={events}
        loading="Loading reflection events…"
        isEmpty={(data) => data.pages[0]?.events.length === 0}
        empty={
          <p>
            {filtered
              ? "No reflection events match these filters."
              : `Reflection has not changed any memory in ${humanize(environment)} yet; activation refreshes are only counted in the runs above.`}
          </p>
        }
      >
        {(data) => (
          <>
            <TableScroll label="Reflection events">
              <table>
                <caption className="visually-hidden">Reflection events, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Process</th>
                    <th scope="col">Action</th>
                    <th scope="col">Memory</th>
                    <th scope="col">Related</th>
                    <th scope="col">Reason</th>
                  </tr>
                </thead>
                <tbody>
                  {data.pages.flatMap((page) => page.events).map((event) => (
                    <EventRow key={event.id} event={event} />
                  ))}
                </tbody>
              </table>
            </TableScroll>
            <NextPageButton query={events} label="Load more events" />
          </>
        )}
      </QueryView>
    </>
  );
}
