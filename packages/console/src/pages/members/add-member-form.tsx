import type { TRole } from "@engram/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId } from "react";
import { api, ok } from "../../api/client";
import { ErrorMessage } from "../../ui/error-message";
import { grantableRoles, roleNames } from "./member-rules";

export interface AddedMember {
  email: string;
  /** Set when the server made a new account: shown once. */
  temporaryPassword?: string;
}

/** Add someone by email; a new email gets an account with a temporary password. */
export function AddMemberForm({ viewerRole, onAdded }: { viewerRole: TRole | undefined; onAdded(member: AddedMember): void }) {
  const queryClient = useQueryClient();
  const emailId = useId();
  const roleId = useId();
  const nameId = useId();
  const add = useMutation({
    mutationFn: (body: { email: string; role: TRole; displayName?: string }) => ok(api.organization.addMember({ body })),
    onSuccess: (answer) => {
      onAdded({ email: answer.member.email, temporaryPassword: answer.temporaryPassword });
      void queryClient.invalidateQueries({ queryKey: ["members"] });
    },
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const displayName = String(data.get("displayName") ?? "").trim();
    add.mutate(
      { email: String(data.get("email") ?? "").trim(), role: String(data.get("role")) as TRole, ...(displayName ? { displayName } : {}) },
      { onSuccess: () => form.reset() },
    );
  };

  return (
    <form className="filters" onSubmit={submit}>
      <div className="field">
        <label htmlFor={emailId}>Email</label>
        <input id={emailId} name="email" type="email" required maxLength={320} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor={nameId}>Display name (optional)</label>
        <input id={nameId} name="displayName" maxLength={100} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor={roleId}>Role</label>
        <select id={roleId} name="role" defaultValue="member">
          {grantableRoles(viewerRole).map((role) => (
            <option key={role} value={role}>
              {roleNames[role]}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button button-primary" disabled={add.isPending}>
        {add.isPending ? "Adding…" : "Add member"}
      </button>
      {add.isError ? <ErrorMessage error={add.error} /> : null}
    </form>
  );
}
