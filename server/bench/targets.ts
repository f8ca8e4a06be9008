/** One figure the performance targets name, beside what this run measured. */
export interface TargetRow {
  figure: string;
  measured: string;
  target: string;
  /** null for a figure that is reported, with no target. */
  pass: boolean | null;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** A latency target: PASS when the measured value is at or under the limit. */
export function atMost(figure: string, measured: number, limit: number, limitText?: string): TargetRow {
  return { figure, measured: ms(measured), target: `≤ ${limitText ?? ms(limit)}`, pass: measured <= limit };
}

/** A throughput (or other "at least") target. */
export function atLeast(figure: string, measured: number, floor: number, show: (n: number) => string, floorText?: string): TargetRow {
  return { figure, measured: show(measured), target: `≥ ${floorText ?? show(floor)}`, pass: measured >= floor };
}

export function reported(figure: string, measured: string): TargetRow {
  return { figure, measured, target: "reported", pass: null };
}

export function formatTargets(rows: readonly TargetRow[]): string {
  const widths = [Math.max(6, ...rows.map((r) => r.figure.length)), Math.max(8, ...rows.map((r) => r.measured.length)), Math.max(6, ...rows.map((r) => r.target.length))];
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  const verdict = (pass: boolean | null) => (pass === null ? "" : pass ? "PASS" : "FAIL");
  return [
    "Performance targets",
    "",
    line(["figure", "measured", "target", "result"]),
    ...rows.map((row) => line([row.figure, row.measured, row.target, verdict(row.pass)])),
  ].join("\n");
}
