import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { api, ok } from "../../api/client";
import { ConfirmAction } from "../../ui/confirm-action";
import { type AssistantDetail, ifMatch } from "./assistant-queries";

/** Deletes the assistant as shown (its version): a change made meanwhile is refused, and the change log stays. */
export function DeleteAssistant({ assistant }: { assistant: AssistantDetail }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (
    <ConfirmAction
      label="Delete assistant"
      title={`Delete ${assistant.name}?`}
      description="The assistant and its capabilities are gone for good; chats can no longer name it. Its change log is kept for owners and admins. This cannot be undone."
      confirmLabel="Delete"
      destructive
      onConfirm={async () => {
        await ok(api.assistants.delete({ params: { assistantId: assistant._id }, headers: ifMatch(assistant.version), body: {} }));
        await queryClient.invalidateQueries({ queryKey: ["assistants"] });
        await navigate("/assistants", { replace: true });
      }}
    />
  );
}
