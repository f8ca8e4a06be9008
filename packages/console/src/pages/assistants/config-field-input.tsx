import type { TConfigField } from "@engram/contract";
import { useId } from "react";
import { type FieldDraft, fieldBounds, fieldLabel } from "./capability-rules";

interface ConfigFieldInputProps {
  field: TConfigField;
  value: FieldDraft | undefined;
  disabled: boolean;
  onChange(value: FieldDraft): void;
}

/** One config field, as the input its type calls for: a number, a checkbox, or a list one entry per line. */
export function ConfigFieldInput({ field, value, disabled, onChange }: ConfigFieldInputProps) {
  const id = useId();
  const hintId = useId();
  const label = fieldLabel(field.name);
  const bounds = fieldBounds(field);
  const hint = (
    <span id={hintId} className="field-hint">
      {field.description}
      {bounds ? ` ${bounds}` : ""}
    </span>
  );

  if (field.type === "boolean") {
    return (
      <div className="field">
        <label className="check">
          <input type="checkbox" checked={value === true} disabled={disabled} aria-describedby={hintId} onChange={(event) => onChange(event.target.checked)} />
          {label}
        </label>
        {hint}
      </div>
    );
  }
  const text = typeof value === "string" ? value : "";
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {field.type === "integer" ? (
        <input
          id={id}
          type="number"
          inputMode="numeric"
          step={1}
          min={field.min}
          max={field.max}
          value={text}
          disabled={disabled}
          aria-describedby={hintId}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : field.type === "string_list" ? (
        <textarea id={id} rows={3} value={text} disabled={disabled} aria-describedby={hintId} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input id={id} value={text} disabled={disabled} aria-describedby={hintId} onChange={(event) => onChange(event.target.value)} />
      )}
      {hint}
    </div>
  );
}
