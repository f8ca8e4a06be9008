import type { TCandidate } from "@engram/contract";
import { api, ok } from "../../api/client";

export type Decision = "promote" | "reject";

/** One candidate's review: promotion makes it durable, rejection tombstones it. */
export const review = (decision: Decision, id: string, reason: string | undefined) =>
  decision === "promote" ? ok(api.organization.promoteCandidate({ params: { id }, body: { reason } })) : ok(api.organization.rejectCandidate({ params: { id }, body: { reason } }));

export interface ReviewOutcome {
  decision: Decision;
  done: number;
  failures: Array<{ candidate: TCandidate; error: unknown }>;
}

/** Reviews candidates one after another, so each failure is reported against its own candidate. */
export async function reviewMany(decision: Decision, candidates: TCandidate[], reason: string | undefined): Promise<ReviewOutcome> {
  const outcome: ReviewOutcome = { decision, done: 0, failures: [] };
  for (const candidate of candidates) {
    try {
      await review(decision, candidate.id, reason);
      outcome.done++;
    } catch (error) {
      outcome.failures.push({ candidate, error });
    }
  }
  return outcome;
}
