import type { TProvenance } from "@engram/contract";
import { formatDateTime, humanize } from "../../ui/format";
import { Panel } from "../../ui/page";
import { StateBadge } from "./state-badge";

/** Reads the history's next page, when there is one. */
interface MoreHistory {
  loading: boolean;
  load(): void;
}

/** Every change of the memory read so far, oldest first: what happened, the states, who did it, why and when. */
export function MemoryHistory({ history, more }: { history: TProvenance["history"]; more: MoreHistory | null }) {
  return (
    <Panel title="History">
      {history.length === 0 ? (
        <p className="state state-empty">No history recorded.</p>
      ) : (
        <ol className="timeline" aria-label="Changes, oldest first">
          {history.map((entry, index) => (
            <li key={`${entry.at}-${index}`} className="timeline-entry">
              <p className="timeline-head">
                <strong>{humanize(entry.action)}</strong>{" "}
                {entry.fromState ? (
                  <>
                    <StateBadge state={entry.fromState} /> <span aria-hidden="true">→</span>
                    <span className="visually-hidden">to</span>{" "}
                  </>
                ) : null}
                <StateBadge state={entry.toState} />
              </p>
              <p className="muted">
                by <span className="actor">{entry.actor}</span> · <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
              </p>
              {entry.reason ? <p className="timeline-reason">Reason: {entry.reason}</p> : null}
            </li>
          ))}
        </ol>
      )}
      {more ? (
        <button type="button" className="button" onClick={more.load} disabled={more.loading}>
          {more.loading ? "Loading…" : "Later changes"}
        </button>
      ) : null}
    </Panel>
  );
}
