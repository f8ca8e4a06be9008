import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { ErrorMessage } from "../../ui/error-message";
import { Page, Panel } from "../../ui/page";

/** The signed-in person: who they are, and their password (a temporary one from an owner is changed here). */
export function AccountPage() {
  const { session, adopt } = useSignedIn();
  const [mismatch, setMismatch] = useState(false);
  const currentId = useId();
  const nextId = useId();
  const repeatId = useId();
  const change = useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => ok(api.auth.changePassword({ body })),
    onSuccess: adopt,
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const newPassword = String(data.get("newPassword") ?? "");
    const repeated = newPassword === String(data.get("repeatPassword") ?? "");
    setMismatch(!repeated);
    if (!repeated) return;
    change.mutate({ currentPassword: String(data.get("currentPassword") ?? ""), newPassword }, { onSuccess: () => form.reset() });
  };

  return (
    <Page title="Account">
      <Panel title="You">
        <dl className="details">
          <dt>Name</dt>
          <dd>{session.user.displayName}</dd>
          <dt>Email</dt>
          <dd>{session.user.email}</dd>
        </dl>
      </Panel>
      <Panel title="Change password">
        <form className="form-stack" onSubmit={submit}>
          <p className="hint">Your other browsers are signed out; this one stays signed in.</p>
          <div className="field">
            <label htmlFor={currentId}>Current password</label>
            <input id={currentId} name="currentPassword" type="password" autoComplete="current-password" required maxLength={1024} />
          </div>
          <div className="field">
            <label htmlFor={nextId}>New password</label>
            <input id={nextId} name="newPassword" type="password" autoComplete="new-password" required maxLength={1024} />
          </div>
          <div className="field">
            <label htmlFor={repeatId}>New password, again</label>
            <input id={repeatId} name="repeatPassword" type="password" autoComplete="new-password" required maxLength={1024} aria-invalid={mismatch} />
            {mismatch ? <p className="field-error">The two new passwords differ.</p> : null}
          </div>
          {change.isError ? <ErrorMessage error={change.error} /> : null}
          {change.isSuccess ? (
            <p className="notice" role="status">
              Password changed.
            </p>
          ) : null}
          <div className="button-row">
            <button type="submit" className="button button-primary" disabled={change.isPending}>
              {change.isPending ? "Changing…" : "Change password"}
            </button>
          </div>
        </form>
      </Panel>
    </Page>
  );
}
