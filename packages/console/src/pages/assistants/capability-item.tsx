import type { TCapabilityEntry, TConfigField } from "@engram/contract";
import { useId } from "react";
import type { FieldDraft } from "./capability-rules";
import { ConfigFieldInput } from "./config-field-input";

interface CapabilityItemProps {
  entry: TCapabilityEntry;
  enabled: boolean;
  /** Why the server does not offer it to this assistant; null when it does. */
  unavailable: string | null;
  readOnly: boolean;
  /** The typed config fields; undefined while loading. */
  fields: readonly TConfigField[] | undefined;
  fieldsError: unknown;
  config: Record<string, FieldDraft> | undefined;
  problems: readonly string[];
  onToggle(enabled: boolean): void;
  onConfig(name: string, value: FieldDraft): void;
}

export const capabilityAnchor = (id: string) => `capability-${id}`;

/** One capability: its switch, what it does, why it may be unavailable, its config form and the server's problems with it. */
export function CapabilityItem({ entry, enabled, unavailable, readOnly, fields, fieldsError, config, problems, onToggle, onConfig }: CapabilityItemProps) {
  const nameId = useId();
  const descriptionId = useId();
  const noteId = useId();
  const problemsId = useId();
  // An unavailable capability that is still enabled (the plan went down) can be turned off, never on.
  const locked = readOnly || entry.alwaysEnabled || (unavailable !== null && !enabled);
  const note = entry.alwaysEnabled ? "Always on: every assistant answers questions." : unavailable;
  const describedBy = [descriptionId, note ? noteId : null, problems.length > 0 ? problemsId : null].filter(Boolean).join(" ");

  return (
    <div
      id={capabilityAnchor(entry.id)}
      className={`capability${problems.length > 0 ? " capability-invalid" : ""}${unavailable ? " capability-unavailable" : ""}`}
      role="group"
      aria-labelledby={nameId}
      tabIndex={-1}
    >
      <label className="check capability-name" id={nameId}>
        <input
          type="checkbox"
          checked={enabled || entry.alwaysEnabled}
          disabled={locked}
          aria-describedby={describedBy}
          aria-invalid={problems.length > 0 || undefined}
          onChange={(event) => onToggle(event.target.checked)}
        />
        {entry.name}
      </label>
      <p id={descriptionId} className="hint">
        {entry.description}{" "}
        <span className="badge">
          <span className="visually-hidden">Plan needed: </span>
          {entry.tierRequirement}+
        </span>
      </p>
      {note ? (
        <p id={noteId} className={unavailable && enabled ? "field-error" : "hint"}>
          {unavailable && enabled ? `Enabled earlier, but unavailable now: ${unavailable} Turn it off to save.` : note}
        </p>
      ) : null}
      {enabled && entry.configFields.length > 0 ? (
        <div className="capability-config">
          {fieldsError ? <p className="field-error">Its config fields could not be loaded; reload the page.</p> : null}
          {!fields && !fieldsError ? <p className="hint">Loading its settings…</p> : null}
          {fields?.map((field) => (
            <ConfigFieldInput key={field.name} field={field} value={config?.[field.name]} disabled={readOnly} onChange={(value) => onConfig(field.name, value)} />
          ))}
        </div>
      ) : null}
      {problems.length > 0 ? (
        <ul id={problemsId} className="field-error problem-list">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
