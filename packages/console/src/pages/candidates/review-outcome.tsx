import { ErrorMessage } from "../../ui/error-message";
import type { ReviewOutcome } from "./review";

const past = { promote: "Promoted", reject: "Rejected" } as const;
const plural = (count: number) => `${count} ${count === 1 ? "candidate" : "candidates"}`;

/** What a review of several candidates did: how many went through, and each one that failed with its reason. */
export function ReviewOutcomeReport({ outcome }: { outcome: ReviewOutcome }) {
  return (
    <div className="review-outcome">
      <p className="notice" role="status">
        {past[outcome.decision]} {plural(outcome.done)}
        {outcome.failures.length > 0 ? `; ${plural(outcome.failures.length)} could not be ${past[outcome.decision].toLowerCase()}.` : "."}
      </p>
      {outcome.failures.length > 0 ? (
        <ul className="review-failures">
          {outcome.failures.map(({ candidate, error }) => (
            <li key={candidate.id}>
              <p className="memory-text">{candidate.text}</p>
              <ErrorMessage error={error} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
