import type { TCandidate } from "@engram/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { ConfirmAction } from "../../ui/confirm-action";
import { humanize } from "../../ui/format";
import { Page, Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { CandidateCard } from "./candidate-card";
import { type Decision, review, type ReviewOutcome, reviewMany } from "./review";
import { ReviewOutcomeReport } from "./review-outcome";
import { countOf } from "../../ui/format";

function BulkReview({ candidates, selected, onSelectAll, onReview }: { candidates: TCandidate[]; selected: TCandidate[]; onSelectAll(all: boolean): void; onReview(decision: Decision, reason: string | undefined): Promise<unknown> }) {
  const allId = useId();
  const none = selected.length === 0;
  return (
    <div className="bulk-review">
      <div className="candidate-select">
        <input id={allId} type="checkbox" checked={selected.length === candidates.length} onChange={(change) => onSelectAll(change.target.checked)} />
        <label htmlFor={allId}>Select all</label>
      </div>
      <span className="muted" aria-live="polite">
        {selected.length} selected
      </span>
      <div className="button-row">
        <ConfirmAction
          label="Promote selected"
          title={`Promote ${countOf(selected.length, "candidate")}?`}
          description="Each becomes a durable memory that retrieval returns."
          reason="optional"
          disabled={none}
          onConfirm={(reason) => onReview("promote", reason)}
        />
        <ConfirmAction
          label="Reject selected"
          title={`Reject ${countOf(selected.length, "candidate")}?`}
          description="Each is tombstoned: never retrieved, kept only for its history. This cannot be undone."
          destructive
          reason="optional"
          disabled={none}
          onConfirm={(reason) => onReview("reject", reason)}
        />
      </div>
      {none ? <p className="hint">Select candidates to review several at once.</p> : null}
    </div>
  );
}

/** Memories awaiting review, each with the developer event it came from; owners and admins promote or reject them. */
export function CandidatesPage() {
  const { environment, canManage } = useSignedIn();
  const queryClient = useQueryClient();
  const candidates = useQuery({ queryKey: ["candidates", environment], queryFn: () => ok(api.organization.listCandidates({ query: { environment } })) });
  const [selection, setSelection] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<ReviewOutcome | null>(null);

  const refresh = async () => {
    void queryClient.invalidateQueries({ queryKey: ["memories"] });
    void queryClient.invalidateQueries({ queryKey: ["memory"] });
    void queryClient.invalidateQueries({ queryKey: ["metrics"] });
    await queryClient.invalidateQueries({ queryKey: ["candidates"] });
  };
  const decideOne = (candidate: TCandidate) => async (decision: Decision, reason: string | undefined) => {
    await review(decision, candidate.id, reason);
    setOutcome(null);
    setSelection((current) => new Set([...current].filter((id) => id !== candidate.id)));
    await refresh();
  };
  const decideMany = (selected: TCandidate[]) => async (decision: Decision, reason: string | undefined) => {
    const result = await reviewMany(decision, selected, reason);
    setOutcome(result);
    // The ones that failed stay selected, to retry or review one by one.
    setSelection(new Set(result.failures.map((failure) => failure.candidate.id)));
    await refresh();
  };
  const select = (id: string) => (selected: boolean) =>
    setSelection((current) => {
      const next = new Set(current);
      if (selected) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <Page title="Candidates">
      <p className="muted">
        Memories awaiting review in the <strong>{humanize(environment)}</strong> environment, oldest first. Retrieval does not return them until they are
        promoted.
      </p>
      {canManage ? null : <p className="hint">Only owners and admins promote or reject candidates. Your role in this organization is member, so you can read them only.</p>}
      {outcome ? <ReviewOutcomeReport outcome={outcome} /> : null}
      <Panel title="Awaiting review">
        <QueryView query={candidates} loading="Loading candidates…" isEmpty={(data) => data.candidates.length === 0} empty={<p>No candidates await review in {humanize(environment)}.</p>}>
          {({ candidates: list }) => {
            const selected = list.filter((candidate) => selection.has(candidate.id));
            return (
              <>
                {canManage ? (
                  <BulkReview candidates={list} selected={selected} onSelectAll={(all) => setSelection(new Set(all ? list.map((candidate) => candidate.id) : []))} onReview={decideMany(selected)} />
                ) : null}
                <ul className="candidate-list">
                  {list.map((candidate) => (
                    <CandidateCard
                      key={candidate.id}
                      candidate={candidate}
                      review={canManage ? { selected: selection.has(candidate.id), onSelect: select(candidate.id), onDecide: decideOne(candidate) } : null}
                    />
                  ))}
                </ul>
              </>
            );
          }}
        </QueryView>
      </Panel>
    </Page>
  );
}
