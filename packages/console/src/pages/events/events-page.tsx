import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { type FormEvent, useId } from "react";
import { useSearchParams } from "react-router";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { humanize } from "../../ui/format";
import { Page, Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { NextPageButton } from "../../ui/next-page-button";
import { EventList } from "./event-list";
import { WorkflowStates } from "./workflow-states";

const pageSize = 50;

/** The type filter, kept in the URL; applied on submit, not on every keystroke. */
function TypeFilter({ type, onChange }: { type: string; onChange(type: string): void }) {
  const id = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onChange(String(new FormData(event.currentTarget).get("type") ?? "").trim());
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter events">
      <div className="field">
        <label htmlFor={id}>Event type</label>
        <input id={id} name="type" defaultValue={type} maxLength={100} placeholder="e.g. incident.opened" />
      </div>
      <div className="button-row">
        <button type="submit" className="button button-primary">
          Filter
        </button>
        {type ? (
          <button type="button" className="button" onClick={() => onChange("")}>
            Show all types
          </button>
        ) : null}
      </div>
    </form>
  );
}

function RecentEvents({ environment }: { environment: ReturnType<typeof useSignedIn>["environment"] }) {
  const [params, setParams] = useSearchParams();
  const type = params.get("type")?.trim() || undefined;
  const events = useInfiniteQuery({
    queryKey: ["events", environment, type ?? null],
    queryFn: ({ pageParam }) => ok(api.memory.events({ query: { environment, type, cursor: pageParam, limit: pageSize } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const setType = (next: string) => setParams(next ? { type: next } : {});
  return (
    <Panel title="Recent events">
      <TypeFilter key={type ?? ""} type={type ?? ""} onChange={setType} />
      <QueryView
        query={events}
        loading="Loading events…"
        isEmpty={(data) => data.pages.every((page) => page.events.length === 0)}
        empty={<p>{type ? `No ${type} events in ${humanize(environment)}.` : `No developer events in ${humanize(environment)} yet. Send them to /v1/memory/events with a token.`}</p>}
      >
        {(data) => (
          <>
            <EventList events={data.pages.flatMap((page) => page.events)} />
            <NextPageButton query={events} label="Load more" />
          </>
        )}
      </QueryView>
    </Panel>
  );
}

/** Recent developer events and the workflows they move: incidents, deployments, pull requests, tickets, CI runs. */
export function EventsPage() {
  const { environment } = useSignedIn();
  const workflows = useQuery({ queryKey: ["workflows", environment], queryFn: () => ok(api.memory.workflows({ query: { environment } })) });
  return (
    <Page title="Events and workflows">
      <p className="muted">
        Developer events received in the <strong>{humanize(environment)}</strong> environment, and where each workflow stands now.
      </p>
      <Panel title="Workflows">
        <QueryView
          query={workflows}
          loading="Loading workflows…"
          isEmpty={(data) => data.workflows.length === 0}
          empty={<p>No incident, deployment, pull request, ticket or CI run has been reported in {humanize(environment)}.</p>}
        >
          {(data) => <WorkflowStates workflows={data.workflows} />}
        </QueryView>
      </Panel>
      <RecentEvents environment={environment} />
    </Page>
  );
}
