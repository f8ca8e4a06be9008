import { ZMemoryKind, ZMemoryState } from "@engram/contract";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { TrendChart } from "../../ui/charts";
import { formatNumber, humanize } from "../../ui/format";
import { Page, Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";

const activity = [
  { key: "encodes", label: "Encodes", color: "#2f6fde" },
  { key: "retrievals", label: "Retrievals", color: "#1d8a4a" },
  { key: "events", label: "Events", color: "#b26b00" },
  { key: "reflectionActions", label: "Reflection actions", color: "#8e3fb8" },
] as const;

function Counts({ title, counts, names }: { title: string; counts: Record<string, number>; names: readonly string[] }) {
  return (
    <Panel title={title}>
      <dl className="stats">
        {names.map((name) => (
          <div key={name}>
            <dt>{humanize(name)}</dt>
            <dd>{formatNumber(counts[name] ?? 0)}</dd>
          </div>
        ))}
      </dl>
    </Panel>
  );
}

export function OverviewPage() {
  const { environment } = useSignedIn();
  const metrics = useQuery({
    queryKey: ["metrics", environment],
    queryFn: () => ok(api.reflection.metrics({ query: { environment } })),
  });
  return (
    <Page title="Overview">
      <p className="muted">
        Memory in the <strong>{humanize(environment)}</strong> environment.
      </p>
      <QueryView
        query={metrics}
        loading="Loading the overview…"
        isEmpty={(data) => data.summary.total === 0 && data.trend.days.every((day) => day.events === 0 && day.retrievals === 0)}
        empty={
          <p>
            No memories in {humanize(environment)} yet. Create a token on the <Link to="/tokens">Tokens</Link> page and encode one through the API, or
            switch environment.
          </p>
        }
      >
        {({ summary, trend }) => (
          <>
            <div className="grid">
              <Counts title="Memories by state" counts={summary.byState} names={ZMemoryState.options} />
              <Counts title="Memories by kind" counts={summary.byKind} names={ZMemoryKind.options} />
            </div>
            <Panel title="Last 30 days">
              <TrendChart title="Activity per day" data={trend.days.map((day) => ({ ...day, x: day.day.slice(5) }))} series={activity} />
            </Panel>
          </>
        )}
      </QueryView>
    </Page>
  );
}
