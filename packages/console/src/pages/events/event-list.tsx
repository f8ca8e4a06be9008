import type { TDeveloperEvent } from "@engram/contract";
import { formatDateTime } from "../../ui/format";
import { TableScroll } from "../../ui/table-scroll";

const none = <span className="muted">—</span>;

/** Developer events, newest first, with their metadata folded away. */
export function EventList({ events }: { events: TDeveloperEvent[] }) {
  return (
    <TableScroll label="Developer events">
      <table className="event-table">
        <caption className="visually-hidden">Developer events, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col">Type</th>
            <th scope="col">Text</th>
            <th scope="col">Source</th>
            <th scope="col">Subject</th>
            <th scope="col">Triage rule</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id}>
              <td>
                <time dateTime={event.receivedAt}>{formatDateTime(event.receivedAt)}</time>
              </td>
              <td>
                <code>{event.type}</code>
              </td>
              <td className="memory-text">
                {event.text}
                {event.metadata ? (
                  <details className="event-metadata">
                    <summary>Metadata</summary>
                    <pre>{JSON.stringify(event.metadata, null, 2)}</pre>
                  </details>
                ) : null}
              </td>
              <td>{event.source ?? none}</td>
              <td>{event.subject ?? none}</td>
              <td>{event.triageRule ? <code>{event.triageRule}</code> : <span className="muted">Unknown type: stored only</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
