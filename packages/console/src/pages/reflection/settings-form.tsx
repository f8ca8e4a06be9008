import type { TReflectionSettings, TReflectionSettingsPatch } from "@engram/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, ok } from "../../api/client";
import { ErrorMessage } from "../../ui/error-message";
import { formatDateTime } from "../../ui/format";
import { type FormValues, fieldProblemsOf, patchOf, type SettingField, settingGroups, valuesOf } from "./settings-fields";

export const settingsKey = ["reflection-settings"] as const;

interface SettingsAnswer {
  settings: TReflectionSettings;
  version: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

function Field({ field, value, error, onChange }: { field: SettingField; value: boolean | string; error?: string; onChange(value: boolean | string): void }) {
  const id = useId();
  const described = [field.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const hint = field.hint ? (
    <span id={`${id}-hint`} className="field-hint">
      {field.hint}
    </span>
  ) : null;
  const problem = error ? (
    <p id={`${id}-error`} className="field-error">
      {error}
    </p>
  ) : null;
  if (field.kind === "toggle") {
    return (
      <div className="field setting-toggle">
        <div className="checks">
          <label htmlFor={id}>
            <input id={id} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} aria-describedby={described} aria-invalid={error ? true : undefined} />
            {field.label}
          </label>
        </div>
        {hint}
        {problem}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      <input
        id={id}
        type="number"
        inputMode={field.integer ? "numeric" : "decimal"}
        min={field.min}
        max={field.max}
        step={field.integer ? 1 : "any"}
        value={String(value)}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={described}
        aria-invalid={error ? true : undefined}
      />
      {hint}
      {problem}
    </div>
  );
}

/**
 * The settings, typed by field. Save sends only what changed; the form's own checks are limited to numbers
 * that do not parse, so the bounds enforced are the server's, shown beside the field it names.
 */
export function SettingsForm({ answer, canManage }: { answer: SettingsAnswer; canManage: boolean }) {
  const queryClient = useQueryClient();
  const [baseline, setBaseline] = useState<FormValues>(() => valuesOf(answer.settings));
  const [values, setValues] = useState<FormValues>(baseline);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const pending = patchOf(values, baseline);

  const save = useMutation({
    mutationFn: (patch: TReflectionSettingsPatch) => ok(api.reflection.updateSettings({ body: patch })),
    onSuccess: (next) => {
      const fresh = valuesOf(next.settings);
      setBaseline(fresh);
      setValues(fresh);
      setSaved(true);
      queryClient.setQueryData(settingsKey, next);
    },
    onError: (error) => setProblems(fieldProblemsOf(error).fields),
  });

  const change = (path: string, value: boolean | string) => {
    setValues((current) => ({ ...current, [path]: value }));
    setSaved(false);
    setProblems(({ [path]: _cleared, ...rest }) => rest);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.reset();
    setProblems(pending.problems);
    if (Object.keys(pending.problems).length === 0 && pending.changed > 0) save.mutate(pending.patch);
  };
  const discard = () => {
    setValues(baseline);
    setProblems({});
    save.reset();
  };
  const unplaced = save.isError && fieldProblemsOf(save.error).unplaced;
  const dirty = pending.changed > 0 || Object.keys(pending.problems).length > 0;

  return (
    <form className="settings-form" onSubmit={submit} noValidate aria-label="Reflection settings">
      {canManage ? null : <p className="notice notice-readonly">Only owners and admins can change reflection settings. You are a member, so this form is read-only.</p>}
      <fieldset className="settings-fieldset" disabled={!canManage}>
        <legend className="visually-hidden">Reflection settings</legend>
        <div className="settings-groups">
          {settingGroups.map((group) => (
            <fieldset key={group.id} className="settings-group">
              <legend>{group.title}</legend>
              <p className="field-hint">{group.description}</p>
              {group.fields.map((field) => (
                <Field key={field.path} field={field} value={values[field.path] ?? ""} error={problems[field.path]} onChange={(value) => change(field.path, value)} />
              ))}
            </fieldset>
          ))}
        </div>
      </fieldset>
      <p className="muted">
        {answer.updatedAt ? `Last changed ${formatDateTime(answer.updatedAt)} by ${answer.updatedBy ?? "unknown"}.` : "The defaults: nobody has changed these settings yet."}
      </p>
      {unplaced ? <ErrorMessage error={save.error} /> : null}
      {Object.keys(problems).length > 0 ? (
        <p className="field-error" role="alert">
          Not saved: correct the fields marked above.
        </p>
      ) : null}
      {saved && !dirty ? (
        <p className="notice" role="status">
          Settings saved.
        </p>
      ) : null}
      {canManage ? (
        <div className="button-row">
          <button type="submit" className="button button-primary" disabled={!dirty || save.isPending}>
            {save.isPending ? "Saving…" : "Save settings"}
          </button>
          <button type="button" className="button" onClick={discard} disabled={!dirty || save.isPending}>
            Discard changes
          </button>
        </div>
      ) : null}
    </form>
  );
}
