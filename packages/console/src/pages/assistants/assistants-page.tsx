import { Link } from "react-router";
import { useSignedIn } from "../../session/session";
import { formatDateTime } from "../../ui/format";
import { Page, Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { type AssistantDetail, assistantTypeNames, useAssistants } from "./assistant-queries";
import { CreateAssistantForm } from "./create-assistant-form";
import { TableScroll } from "../../ui/table-scroll";
import { NextPageButton } from "../../ui/next-page-button";

function AssistantsTable({ assistants, userId }: { assistants: AssistantDetail[]; userId: string }) {
  return (
    <TableScroll label="Assistants">
      <table>
        <caption className="visually-hidden">Assistants</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col" className="number">
              Capabilities
            </th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {assistants.map((assistant) => (
            <tr key={assistant._id}>
              <th scope="row">
                <Link to={`/assistants/${assistant._id}`}>{assistant.name}</Link>
              </th>
              <td>
                {assistantTypeNames[assistant.type]}
                {assistant.type === "employee_personal" ? <span className="muted">{assistant.ownerUserId === userId ? " (yours)" : " (a member's)"}</span> : null}
              </td>
              <td className="number">{assistant.capabilities.length}</td>
              <td>{formatDateTime(assistant.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** The assistants the person may see, and a form to make one. */
export function AssistantsPage() {
  const { session } = useSignedIn();
  const assistants = useAssistants();
  return (
    <Page title="Assistants">
      <Panel title="New assistant">
        <CreateAssistantForm />
      </Panel>
      <Panel title="All assistants">
        <QueryView
          query={assistants}
          loading="Loading assistants…"
          empty="No assistants yet: create one above."
          isEmpty={(data) => data.pages.every((page) => page.assistants.length === 0)}
        >
          {(data) => (
            <>
              <AssistantsTable assistants={data.pages.flatMap((page) => page.assistants)} userId={session.user.id} />
              <NextPageButton query={assistants} label="More assistants" />
            </>
          )}
        </QueryView>
      </Panel>
    </Page>
  );
}
