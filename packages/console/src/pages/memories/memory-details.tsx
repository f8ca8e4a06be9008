import type { TProvenance } from "@engram/contract";
import { Fragment, type ReactNode } from "react";
import { formatDateTime, formatPercent, humanize } from "../../ui/format";
import { Panel } from "../../ui/page";
import { sourceName, StateBadge } from "./state-badge";

const none = <span className="muted">—</span>;
const time = (iso: string | null) => (iso ? <time dateTime={iso}>{formatDateTime(iso)}</time> : none);

function Details({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="details">
      {rows.map(([term, value]) => (
        <Fragment key={term}>
          <dt>{term}</dt>
          <dd>{value ?? none}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

export function MemoryDetails({ memory }: { memory: TProvenance["memory"] }) {
  return (
    <Panel title="Details">
      <p className="memory-text memory-text-full">{memory.text}</p>
      <Details
        rows={[
          ["State", <StateBadge state={memory.state} />],
          ["Kind", humanize(memory.memoryKind)],
          ["Confidence", formatPercent(memory.confidence)],
          ["Agent", memory.agent ?? "Shared by the organization"],
          ["Subject", memory.subject],
          ["Environment", humanize(memory.environment)],
          ["Reinforced", `${memory.reinforcementCount} ${memory.reinforcementCount === 1 ? "time" : "times"}`],
          ["Last reinforced", time(memory.lastReinforcedAt)],
          ["Created", time(memory.createdAt)],
          ["Updated", time(memory.updatedAt)],
          ["Id", <code>{memory.id}</code>],
        ]}
      />
    </Panel>
  );
}

/** Where the memory came from: the token, actor and request that wrote it, and the developer event when there was one. */
export function MemorySource({ source }: { source: TProvenance["source"] }) {
  const { event } = source;
  return (
    <Panel title="Source">
      <Details
        rows={[
          ["Source", sourceName(source.kind)],
          ["Actor", source.actor],
          ["Token", source.tokenId ? <code>{source.tokenId}</code> : null],
          ["Request", source.requestId ? <code>{source.requestId}</code> : null],
          ["Idempotency key", source.idempotencyKey ? <code>{source.idempotencyKey}</code> : null],
        ]}
      />
      {event ? (
        <>
          <h3>Developer event</h3>
          <Details
            rows={[
              ["Type", <code>{event.type}</code>],
              ["Source", event.source],
              ["Subject", event.subject],
              ["Received", time(event.receivedAt)],
              ["Event id", <code>{event.id}</code>],
            ]}
          />
          {event.metadata ? (
            <details>
              <summary>Event metadata</summary>
              <pre>{JSON.stringify(event.metadata, null, 2)}</pre>
            </details>
          ) : null}
        </>
      ) : null}
    </Panel>
  );
}
