import type { TWorkflowState } from "@engram/contract";
import { formatDateTime, humanize } from "../../ui/format";
import { TableScroll } from "../../ui/table-scroll";

/** Terminal or healthy states read as done; failures as danger; everything else is still moving. */
const tone = (state: string) =>
  ["resolved", "deployed", "passed", "merged", "closed"].includes(state) ? "ok" : ["failed", "rolled_back"].includes(state) ? "danger" : "warn";

const detailText = (details: Record<string, unknown>) =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(" · ");

function WorkflowTable({ workflow, states }: { workflow: string; states: TWorkflowState[] }) {
  const withTrack = states.some((state) => state.track !== "");
  return (
    <section className="workflow" aria-labelledby={`workflow-${workflow}`}>
      <h3 id={`workflow-${workflow}`}>{humanize(workflow)}</h3>
      <TableScroll label={humanize(workflow)}>
        <table className="workflow-table">
          <thead>
            <tr>
              <th scope="col">Subject</th>
              {withTrack ? <th scope="col">Track</th> : null}
              <th scope="col">State</th>
              <th scope="col">Updated</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {states.map((state) => (
              <tr key={`${state.subject}\u0000${state.track}`}>
                <th scope="row" className="memory-text">
                  {state.subject}
                </th>
                {withTrack ? <td>{state.track || <span className="muted">—</span>}</td> : null}
                <td>
                  <span className={`badge badge-${tone(state.state)}`}>{humanize(state.state)}</span>
                </td>
                <td>
                  <time dateTime={state.updatedAt}>{formatDateTime(state.updatedAt)}</time>
                </td>
                <td className="memory-text">{detailText(state.details) || <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

/** The current state of each incident, deployment, pull request, ticket and CI run, grouped by workflow. */
export function WorkflowStates({ workflows }: { workflows: TWorkflowState[] }) {
  const groups = new Map<string, TWorkflowState[]>();
  for (const state of workflows) groups.set(state.workflow, [...(groups.get(state.workflow) ?? []), state]);
  return (
    <div className="workflows">
      {[...groups.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([workflow, states]) => (
          <WorkflowTable key={workflow} workflow={workflow} states={[...states].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))} />
        ))}
    </div>
  );
}
