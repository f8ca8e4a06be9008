import { type FormEvent, useId, useRef, useState } from "react";
import { ErrorMessage } from "./error-message";

interface ConfirmActionProps {
  /** The button that opens the dialog. */
  label: string;
  title: string;
  description: string;
  confirmLabel?: string;
  /** Styles the confirm button as dangerous: for changes that cannot be undone. */
  destructive?: boolean;
  /** Ask for a reason, recorded with the change. */
  reason?: "required" | "optional" | "none";
  disabled?: boolean;
  onConfirm(reason: string | undefined): Promise<unknown>;
}

/** A button that changes nothing until the person confirms in a modal dialog (native <dialog>: focus trapped, Esc closes). */
export function ConfirmAction({ label, title, description, confirmLabel = label, destructive = false, reason = "none", disabled, onConfirm }: ConfirmActionProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const titleId = useId();
  const reasonId = useId();

  const open = () => {
    setError(null);
    dialog.current?.showModal();
  };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // Kept before the await: React clears currentTarget once the handler yields.
    const form = event.currentTarget;
    const text = String(new FormData(form).get("reason") ?? "").trim();
    setPending(true);
    try {
      await onConfirm(text || undefined);
      form.reset();
      dialog.current?.close();
    } catch (failure) {
      setError(failure);
    } finally {
      setPending(false);
    }
  };

  return (
    <>
      <button type="button" className={destructive ? "button button-danger" : "button"} onClick={open} disabled={disabled}>
        {label}
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby={titleId}>
        <form onSubmit={submit}>
          <h2 id={titleId}>{title}</h2>
          <p>{description}</p>
          {reason !== "none" ? (
            <div className="field">
              <label htmlFor={reasonId}>Reason{reason === "optional" ? " (optional)" : ""}</label>
              <textarea id={reasonId} name="reason" rows={3} maxLength={1000} required={reason === "required"} />
            </div>
          ) : null}
          {error ? <ErrorMessage error={error} /> : null}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" className={destructive ? "button button-danger" : "button button-primary"} disabled={pending}>
              {pending ? "Working…" : confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
