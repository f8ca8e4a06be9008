/**
 * CPU time of a process and its descendants, from Linux's /proc, so the benchmark can say how much of the
 * machine the server had: with two cores, the load generator and the model stand-in share them. And the
 * machine's own times, so a run can say how much the hypervisor took from it (on a shared machine the same
 * code's figures move with that).
 */
import { existsSync, readFileSync } from "node:fs";

const TICK_MS = 10;

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback;
  }
}

/** User and system time of one process, in milliseconds (0 once it is gone). */
export function processCpuMs(pid: number): number {
  const stat = readOr(`/proc/${pid}/stat`, "");
  // The command name is in parentheses and may hold spaces: the fields counted here follow it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields.length > 12 ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0;
}

function descendants(pid: number): number[] {
  const children = readOr(`/proc/${pid}/task/${pid}/children`, "").trim().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...children.flatMap(descendants)];
}

/** Whether this machine exposes process times as read here. */
export const cpuUsageAvailable = existsSync(`/proc/${process.pid}/stat`);

/** CPU milliseconds used so far by `pid` and the processes below it. */
export const treeCpuMs = (pid: number): number => descendants(pid).reduce((sum, p) => sum + processCpuMs(p), 0);

/** The machine's CPU times so far, in ticks: all of them, and those stolen by the hypervisor (0 where unknown). */
export interface MachineTicks {
  total: number;
  stolen: number;
}

export function machineTicks(): MachineTicks {
  const [label, ...fields] = readOr("/proc/stat", "").split("\n")[0]!.trim().split(/\s+/);
  if (label !== "cpu") return { total: 0, stolen: 0 };
  // user nice system idle iowait irq softirq steal (guest time is counted in user time already).
  const ticks = fields.slice(0, 8).map(Number);
  return { total: ticks.reduce((sum, t) => sum + t, 0), stolen: ticks[7] ?? 0 };
}

/** The share of the machine's CPU time stolen since `since` (a machineTicks reading), or null where unknown. */
export function stolenSince(since: MachineTicks): number | null {
  const now = machineTicks();
  const total = now.total - since.total;
  return total > 0 ? (now.stolen - since.stolen) / total : null;
}
