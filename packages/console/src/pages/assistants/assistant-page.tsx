import { Link, useParams } from "react-router";
import { ApiError } from "../../api/api-error";
import { useSignedIn } from "../../session/session";
import { formatDateTime } from "../../ui/format";
import { Page, Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { type AssistantDetail, assistantTypeNames, useAssistant, whyNotModify } from "./assistant-queries";
import { CapabilitiesPanel, useRegistry } from "./capabilities-panel";
import { ChangeHistory } from "./change-history";
import { DeleteAssistant } from "./delete-assistant";
import { RenameForm } from "./rename-form";

function AssistantView({ assistant }: { assistant: AssistantDetail }) {
  const { session, canManage } = useSignedIn();
  const registry = useRegistry();
  const readOnlyReason = whyNotModify(assistant, session.user.id, canManage);
  const names = new Map(registry.data?.capabilities.map((entry) => [entry.id, entry.name]) ?? []);

  return (
    <Page title={assistant.name} actions={<Link to="/assistants">All assistants</Link>}>
      <Panel title="Details">
        <dl className="details">
          <dt>Type</dt>
          <dd>{assistantTypeNames[assistant.type]}</dd>
          <dt>Version</dt>
          <dd>{assistant.version}</dd>
          <dt>Created</dt>
          <dd>{formatDateTime(assistant.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{formatDateTime(assistant.updatedAt)}</dd>
        </dl>
        {readOnlyReason ? (
          <p className="hint">{readOnlyReason}</p>
        ) : (
          <>
            <RenameForm assistant={assistant} />
            <div className="button-row">
              <DeleteAssistant assistant={assistant} />
            </div>
          </>
        )}
      </Panel>
      <CapabilitiesPanel assistant={assistant} readOnlyReason={readOnlyReason} />
      <Panel title="Change history">
        <ChangeHistory assistantId={assistant._id} nameOf={(id) => names.get(id) ?? id} />
      </Panel>
    </Page>
  );
}

/** One assistant: its details, the capabilities editor and its change history. */
export function AssistantPage() {
  const { assistantId = "" } = useParams();
  const assistant = useAssistant(assistantId);
  if (assistant.error instanceof ApiError && assistant.error.status === 404) {
    return (
      <Page title="Assistant not found">
        <p className="state state-empty">
          There is no assistant {assistantId} that you can see. <Link to="/assistants">See all assistants</Link>.
        </p>
      </Page>
    );
  }
  return (
    <QueryView query={assistant} loading="Loading the assistant…">
      {(data) => <AssistantView assistant={data.assistant} />}
    </QueryView>
  );
}
