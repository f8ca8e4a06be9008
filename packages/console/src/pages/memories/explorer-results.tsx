import type { TExplorerMemory } from "@engram/contract";
import { Link, useLocation } from "react-router";
import { formatDateTime, formatScore, humanize } from "../../ui/format";
import { sourceName, StateBadge } from "./state-badge";
import { TableScroll } from "../../ui/table-scroll";

/** One page of the explorer's answer: ranked answers carry a score column, listings do not. */
export function ExplorerResults({ memories, ranked }: { memories: TExplorerMemory[]; ranked: boolean }) {
  const { search } = useLocation();
  return (
    <TableScroll label="Memories found">
      <table className="memory-table">
        <caption className="visually-hidden">{ranked ? "Memories ranked for the search, best first" : "Memories, newest first"}</caption>
        <thead>
          <tr>
            <th scope="col">Memory</th>
            {ranked ? (
              <th scope="col" className="number">
                Score
              </th>
            ) : null}
            <th scope="col">Kind</th>
            <th scope="col">State</th>
            <th scope="col">Agent</th>
            <th scope="col">Subject</th>
            <th scope="col">Source</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {memories.map((memory) => (
            <tr key={memory.id}>
              <td className="memory-text">
                <Link to={`/memories/${encodeURIComponent(memory.id)}`} state={{ explorerSearch: search }}>
                  {memory.text}
                </Link>
              </td>
              {ranked ? <td className="number">{formatScore(memory.score)}</td> : null}
              <td>{humanize(memory.memoryKind)}</td>
              <td>
                <StateBadge state={memory.state} />
              </td>
              <td>{memory.agent ?? <span className="muted">Shared</span>}</td>
              <td>{memory.subject ?? <span className="muted">—</span>}</td>
              <td>{sourceName(memory.source)}</td>
              <td>
                <time dateTime={memory.createdAt}>{formatDateTime(memory.createdAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
