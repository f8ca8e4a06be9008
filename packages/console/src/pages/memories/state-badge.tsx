import type { TMemory, TMemoryState } from "@engram/contract";
import { humanize } from "../../ui/format";

/** A memory's state as a coloured badge; the word carries the meaning, the colour only repeats it. */
export function StateBadge({ state }: { state: TMemoryState }) {
  return <span className={`badge badge-${state}`}>{humanize(state)}</span>;
}

const sources: Record<TMemory["source"], string> = { api: "API", developer_event: "Developer event", reflection: "Reflection" };

/** Where a memory came from, in words. */
export const sourceName = (source: TMemory["source"]) => sources[source];
