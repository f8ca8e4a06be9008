/**
 * CPU time of a process and its descendants, from Linux's /proc, so the benchmark can say how much of the
 * machine the server had: with two cores, the load generator and the model stand-in share them.
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
