import type { TEnvironment, ZMetricsDistribution, ZMetricsSummary, ZMetricsTrend } from "@engram/contract";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { z } from "zod";
import { api, ok } from "../../api/client";
import { BucketChart, TrendChart } from "../../ui/charts";
import { formatNumber, humanize } from "../../ui/format";
import { Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { reflectionKeys } from "./run-now";

type Histogram = z.infer<typeof ZMetricsDistribution>["activation"];

const trendSeries = [
  { key: "encodes", label: "Encodes", color: "#2f6fde" },
  { key: "retrievals", label: "Retrievals", color: "#1d8a4a" },
  { key: "reinforcements", label: "Reinforcements", color: "#0f7c8c" },
  { key: "suppressions", label: "Suppressions", color: "#b3261e" },
  { key: "promotions", label: "Promotions", color: "#b26b00" },
  { key: "reflectionActions", label: "Reflection actions", color: "#8e3fb8" },
] as const;
const bucketSeries = [{ key: "count", label: "Memories", color: "#2f6fde" }] as const;

/** Bucket bounds as short as they can be, so the labels of ten buckets fit under a narrow chart. */
const figure = (value: number) => (Number.isInteger(value) ? formatNumber(value) : String(Number(value.toFixed(2))));
const buckets = (histogram: Histogram) =>
  histogram.map((bucket) => ({ x: bucket.to === null ? `${figure(bucket.from)} or more` : `${figure(bucket.from)}–${figure(bucket.to)}`, count: bucket.count }));

function Distributions({ distribution }: { distribution: z.infer<typeof ZMetricsDistribution> }) {
  const [activation, confidence, age] = useMemo(() => [buckets(distribution.activation), buckets(distribution.confidence), buckets(distribution.ageDays)], [distribution]);
  return (
    <div className="grid">
      <BucketChart title="Activation" data={activation} series={bucketSeries} xLabel="Activation" />
      <BucketChart title="Confidence" data={confidence} series={bucketSeries} xLabel="Confidence" />
      <BucketChart title="Age (days)" data={age} series={bucketSeries} xLabel="Age in days" />
    </div>
  );
}

function Summary({ summary }: { summary: z.infer<typeof ZMetricsSummary> }) {
  const stats = [
    ["Memories", formatNumber(summary.total)],
    ["Average activation", summary.averageActivation === null ? "—" : summary.averageActivation.toFixed(2)],
    ["Average confidence", summary.averageConfidence === null ? "—" : summary.averageConfidence.toFixed(2)],
    ["Flagged stale", formatNumber(summary.flagged.stale)],
    ["Superseded", formatNumber(summary.flagged.superseded)],
    ["Merged duplicates", formatNumber(summary.flagged.duplicates)],
  ] as const;
  return (
    <dl className="stats">
      {stats.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

// Charts redraw when their data array changes: derive it once per answer, not on every render.
function Trend({ trend }: { trend: z.infer<typeof ZMetricsTrend> }) {
  const data = useMemo(() => trend.days.map((day) => ({ ...day, x: day.day.slice(5) })), [trend]);
  return <TrendChart title={`Per day, ${trend.from} to ${trend.to}`} data={data} series={trendSeries} />;
}

const quiet = (trend: z.infer<typeof ZMetricsTrend>) => trend.days.every((day) => trendSeries.every((series) => day[series.key] === 0));
const counted = (histogram: Histogram) => histogram.reduce((sum, bucket) => sum + bucket.count, 0);

/** The environment's memory at a glance: summary, the last 30 days, and how activation, confidence and age spread. */
export function ReflectionCharts({ environment }: { environment: TEnvironment }) {
  // The overview reads the same metrics under the same key: one request serves both pages.
  const metrics = useQuery({
    queryKey: reflectionKeys(environment).metrics,
    queryFn: () => ok(api.reflection.metrics({ query: { environment } })),
  });
  return (
    <>
      <Panel title="Memory metrics">
        <QueryView
          query={metrics}
          loading="Loading memory metrics…"
          isEmpty={(data) => data.summary.total === 0 && quiet(data.trend)}
          empty={<p>No memories in {humanize(environment)} yet: there is nothing for reflection to look at.</p>}
        >
          {({ summary, trend }) => (
            <>
              <Summary summary={summary} />
              <Trend trend={trend} />
            </>
          )}
        </QueryView>
      </Panel>
      <Panel title="Distributions">
        <QueryView
          query={metrics}
          loading="Loading distributions…"
          isEmpty={({ distribution }) => counted(distribution.activation) + counted(distribution.confidence) + counted(distribution.ageDays) === 0}
          empty={<p>No durable memories in {humanize(environment)} yet.</p>}
        >
          {({ distribution }) => (
            <>
              <p className="muted">Durable memories, counted by bucket.</p>
              <Distributions distribution={distribution} />
            </>
          )}
        </QueryView>
      </Panel>
    </>
  );
}
