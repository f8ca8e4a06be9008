import type { TCandidate } from "@engram/contract";
import { useId } from "react";
import { Link } from "react-router";
import { ConfirmAction } from "../../ui/confirm-action";
import { formatDateTime, formatPercent, humanize } from "../../ui/format";

interface CandidateCardProps {
  candidate: TCandidate;
  /** Null for members: they read candidates but do not review them. */
  review: null | {
    selected: boolean;
    onSelect(selected: boolean): void;
    onDecide(decision: "promote" | "reject", reason: string | undefined): Promise<unknown>;
  };
}

/** A candidate with the developer event it came from, and (for owners and admins) its selection and review buttons. */
export function CandidateCard({ candidate, review }: CandidateCardProps) {
  const textId = useId();
  const selectId = useId();
  const { event } = candidate;
  return (
    <li className="card candidate">
      <div className="candidate-head">
        {review ? (
          <div className="candidate-select">
            <input id={selectId} type="checkbox" checked={review.selected} onChange={(change) => review.onSelect(change.target.checked)} aria-describedby={textId} />
            <label htmlFor={selectId}>Select</label>
          </div>
        ) : null}
        <span className="badge">{humanize(candidate.memoryKind)}</span>
        <span className="muted">Confidence {formatPercent(candidate.confidence)}</span>
      </div>
      <p id={textId} className="memory-text">
        <Link to={`/memories/${encodeURIComponent(candidate.id)}`}>{candidate.text}</Link>
      </p>
      <dl className="details">
        <dt>Subject</dt>
        <dd>{candidate.subject ?? "—"}</dd>
        <dt>Agent</dt>
        <dd>{candidate.agent ?? "Shared by the organization"}</dd>
        <dt>Created</dt>
        <dd>
          <time dateTime={candidate.createdAt}>{formatDateTime(candidate.createdAt)}</time>
        </dd>
      </dl>
      {event ? (
        <div className="candidate-event">
          <h3>
            From event <code>{event.type}</code>
          </h3>
          <p className="memory-text">{event.text}</p>
          <dl className="details">
            <dt>Source</dt>
            <dd>{event.source ?? "—"}</dd>
            <dt>Subject</dt>
            <dd>{event.subject ?? "—"}</dd>
            <dt>Received</dt>
            <dd>
              <time dateTime={event.receivedAt}>{formatDateTime(event.receivedAt)}</time>
            </dd>
          </dl>
        </div>
      ) : (
        <p className="muted">Encoded directly, not from a developer event.</p>
      )}
      {review ? (
        <div className="button-row">
          <ConfirmAction
            label="Promote"
            title="Promote this candidate?"
            description={`It becomes a durable memory that retrieval returns: “${candidate.text}”`}
            reason="optional"
            onConfirm={(reason) => review.onDecide("promote", reason)}
          />
          <ConfirmAction
            label="Reject"
            title="Reject this candidate?"
            description={`It is tombstoned: never retrieved, kept only for its history. This cannot be undone: “${candidate.text}”`}
            destructive
            reason="optional"
            onConfirm={(reason) => review.onDecide("reject", reason)}
          />
        </div>
      ) : null}
    </li>
  );
}
