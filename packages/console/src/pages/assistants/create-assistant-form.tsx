import { type TAssistantType, ZAssistantType } from "@engram/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId } from "react";
import { Link } from "react-router";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { ErrorMessage } from "../../ui/error-message";
import { assistantTypeNames } from "./assistant-queries";

/** A new assistant: organization-wide ones by owners and admins, personal ones by anyone, for themselves. */
export function CreateAssistantForm() {
  const { canManage } = useSignedIn();
  const queryClient = useQueryClient();
  const nameId = useId();
  const typeId = useId();
  const typeHintId = useId();
  const create = useMutation({
    mutationFn: (body: { name: string; type: TAssistantType }) => ok(api.assistants.create({ body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["assistants"] }),
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    create.mutate({ name: String(data.get("name") ?? ""), type: String(data.get("type")) as TAssistantType }, { onSuccess: () => form.reset() });
  };

  return (
    <form className="filters" onSubmit={submit}>
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input id={nameId} name="name" required maxLength={100} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor={typeId}>Type</label>
        <select id={typeId} name="type" defaultValue={canManage ? "org_shared" : "employee_personal"} aria-describedby={typeHintId}>
          {ZAssistantType.options.map((type) => (
            <option key={type} value={type} disabled={type === "org_shared" && !canManage}>
              {assistantTypeNames[type]}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create assistant"}
      </button>
      <p id={typeHintId} className="hint form-note">
        Organization-wide assistants serve everyone{canManage ? "" : " and are created by owners and admins"}; a personal one belongs to
        you.
      </p>
      {create.isError ? <ErrorMessage error={create.error} /> : null}
      {create.isSuccess ? (
        <p className="notice form-note" role="status">
          Created <Link to={`/assistants/${create.data.assistant._id}`}>{create.data.assistant.name}</Link>: open it to choose its capabilities.
        </p>
      ) : null}
    </form>
  );
}
