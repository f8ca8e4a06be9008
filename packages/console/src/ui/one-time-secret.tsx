import { useId, useState } from "react";

interface OneTimeSecretProps {
  /** The field's label: "Token secret", "Temporary password". */
  label: string;
  secret: string;
  /** What the secret is for, shown above it. */
  description: string;
  onDismiss(): void;
}

type CopyState = "idle" | "copied" | "failed";

/**
 * A secret the server shows only once: in a read-only field (selectable by hand), with a copy button whose
 * outcome is announced, and a plain warning that it cannot be shown again.
 */
export function OneTimeSecret({ label, secret, description, onDismiss }: OneTimeSecretProps) {
  const [copy, setCopy] = useState<CopyState>("idle");
  const fieldId = useId();
  const warningId = useId();

  const copyToClipboard = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopy("copied");
    } catch {
      setCopy("failed");
    }
  };

  return (
    <div className="one-time-secret notice" role="region" aria-labelledby={warningId}>
      <p>{description}</p>
      <p id={warningId}>
        <strong>Copy it now: you will not see it again.</strong>
      </p>
      <div className="field">
        <label htmlFor={fieldId}>{label}</label>
        <textarea
          id={fieldId}
          className="secret"
          rows={2}
          readOnly
          value={secret}
          aria-describedby={warningId}
          spellCheck={false}
          autoComplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
      </div>
      <div className="button-row">
        <button type="button" className="button button-primary" onClick={() => void copyToClipboard()}>
          Copy
        </button>
        <button type="button" className="button" onClick={onDismiss}>
          I have saved it
        </button>
        <span className="copy-status" aria-live="polite">
          {copy === "copied" ? "Copied" : copy === "failed" ? "Could not copy: select the text and copy it by hand." : ""}
        </span>
      </div>
    </div>
  );
}
