import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId } from "react";
import { api, ok } from "../../api/client";
import { ErrorMessage } from "../../ui/error-message";
import { type AssistantDetail, ifMatch, invalidateAssistant } from "./assistant-queries";

/** Rename, conditional on the version shown: a colleague's change in between is reported, not overwritten. */
export function RenameForm({ assistant }: { assistant: AssistantDetail }) {
  const queryClient = useQueryClient();
  const nameId = useId();
  const rename = useMutation({
    mutationFn: (name: string) => ok(api.assistants.rename({ params: { assistantId: assistant._id }, headers: ifMatch(assistant.version), body: { name } })),
    onSuccess: () => invalidateAssistant(queryClient, assistant._id),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    rename.mutate(String(new FormData(event.currentTarget).get("name") ?? ""));
  };
  return (
    <form className="filters" onSubmit={submit}>
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input id={nameId} name="name" defaultValue={assistant.name} required maxLength={100} autoComplete="off" />
      </div>
      <button type="submit" className="button" disabled={rename.isPending}>
        {rename.isPending ? "Renaming…" : "Rename"}
      </button>
      {rename.isError ? <ErrorMessage error={rename.error} /> : null}
      {rename.isSuccess ? (
        <p className="notice form-note" role="status">
          Renamed to {rename.data.assistant.name}.
        </p>
      ) : null}
    </form>
  );
}
