import { useEffect, useMemo, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatNumber } from "./format";
import { TableScroll } from "./table-scroll";

interface Series<K extends string> {
  key: K;
  label: string;
  color: string;
}

interface ChartProps<K extends string> {
  title: string;
  /** One entry per x value; `x` is its label. */
  data: ReadonlyArray<{ x: string } & Record<K, number>>;
  series: ReadonlyArray<Series<K>>;
  /** Label of the x column in the data table. */
  xLabel?: string;
}

const HEIGHT = 220;

/** uPlot draws on a canvas sized in pixels: the chart follows its container's width. */
function useChart(build: (width: number) => uPlot.Options, data: uPlot.AlignedData) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const plot = new uPlot(build(element.clientWidth || 600), data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth || 600, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [build, data]);
  return container;
}

function options<K extends string>({ data, series }: ChartProps<K>, width: number, bars: boolean): uPlot.Options {
  const labels = data.map((row) => row.x);
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    scales: { x: { time: false, range: [-0.5, Math.max(labels.length - 0.5, 0.5)] } },
    axes: [
      { values: (_plot, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? (labels[tick] ?? "") : "")), stroke: "currentColor", grid: { show: false } },
      { stroke: "currentColor", grid: { stroke: "rgba(128,128,128,0.25)" }, values: (_plot, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? formatNumber(tick) : "")) },
    ],
    series: [
      {},
      ...series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: 2,
        ...(bars ? { fill: s.color, paths: uPlot.paths.bars?.({ size: [0.7 / series.length, 64] }), points: { show: false } } : { points: { show: false } }),
      })),
    ],
  };
}

const aligned = <K extends string>({ data, series }: ChartProps<K>): uPlot.AlignedData => [data.map((_, i) => i), ...series.map((s) => data.map((row) => row[s.key]))];

/** The numbers behind a chart, as a table a screen reader (or anyone) can read. */
function ChartData<K extends string>({ title, data, series, xLabel = "Day" }: ChartProps<K>) {
  return (
    <details className="chart-data">
      <summary>Show the data</summary>
      <TableScroll label={`${title}: the data`}>
        <table>
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{xLabel}</th>
              {series.map((s) => (
                <th scope="col" key={s.key} className="number">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.map((row) => (
              <tr key={row.x}>
                <th scope="row">{row.x}</th>
                {series.map((s) => (
                  <td key={s.key} className="number">
                    {formatNumber(row[s.key])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}

function Chart<K extends string>({ bars, ...props }: ChartProps<K> & { bars: boolean }) {
  const total = props.data.reduce((sum, row) => sum + props.series.reduce((inner, s) => inner + row[s.key], 0), 0);
  // Rebuilt only when the data or series change, not on every render.
  const data = useMemo(() => aligned(props), [props.data, props.series]);
  const build = useMemo(() => (width: number) => options(props, width, bars), [props.data, props.series, bars]);
  const container = useChart(build, data);
  return (
    <figure className="chart" data-chart={props.title} data-total={total}>
      <figcaption>{props.title}</figcaption>
      <ul className="chart-legend" aria-hidden="true">
        {props.series.map((s) => (
          <li key={s.key}>
            <span className="chart-swatch" style={{ background: s.color }} />
            {s.label}
          </li>
        ))}
      </ul>
      <div className="chart-canvas" ref={container} aria-hidden="true" />
      <ChartData {...props} />
    </figure>
  );
}

/** Series over days, one line each. */
export const TrendChart = <K extends string>(props: ChartProps<K>) => <Chart {...props} bars={false} />;

/** Counts per bucket, one bar series each. */
export const BucketChart = <K extends string>(props: ChartProps<K>) => <Chart {...props} bars />;
