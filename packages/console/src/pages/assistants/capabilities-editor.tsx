import type { TCapabilityEntry, TConfigField, TTier } from "@engram/contract";
import { useMutation, useQueries, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import { isApiError } from "../../api/api-error";
import { api, ok } from "../../api/client";
import { ErrorMessage } from "../../ui/error-message";
import { type AssistantDetail, ifMatch, invalidateAssistant } from "./assistant-queries";
import { CapabilityItem, capabilityAnchor } from "./capability-item";
import { byCategory, type CapabilityDraft, draftOf, type FieldDraft, placeProblems, unavailableReason, updateBody } from "./capability-rules";

const categoryId = (category: string) => `category-${category.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

interface EditorProps {
  assistant: AssistantDetail;
  registry: readonly TCapabilityEntry[];
  /** What the server offers this assistant at the organization's tier. */
  available: { ids: ReadonlySet<string>; tier: TTier; limit: number };
  /** Why the person may not change the assistant; null when they may. */
  readOnlyReason: string | null;
  /** The server's confirmation after a save; null when a new save starts. */
  onSaved(message: string | null): void;
}

/** The typed config fields of each enabled capability that takes a config, loaded once per capability. */
function useConfigFields(ids: readonly string[]) {
  const results = useQueries({
    queries: ids.map((id) => ({
      queryKey: ["capability", id],
      queryFn: () => ok(api.capabilities.capability({ params: { capabilityId: id } })),
      staleTime: Number.POSITIVE_INFINITY,
    })),
  });
  const fields = new Map<string, { fields?: readonly TConfigField[]; error: unknown }>();
  ids.forEach((id, index) => fields.set(id, { fields: results[index]?.data?.configFields, error: results[index]?.error ?? null }));
  return { fields, loading: results.some((result) => result.isPending) };
}

function Counter({ count, limit, tier }: { count: number; limit: number; tier: TTier }) {
  return (
    <p className={count > limit ? "capability-counter field-error" : "capability-counter"} aria-live="polite">
      <strong>
        {count} of {limit} enabled
      </strong>
      {count > limit ? ` — over the ${tier} plan's limit: turn ${count - limit} off before saving.` : ""}
    </p>
  );
}

/** The server's refusal: problems tied to no capability in full, the others as links to where they are shown. */
function Refusal({ error, general, byCapability, names, onReload }: { error: unknown; general: string[]; byCapability: Map<string, string[]>; names: Map<string, string>; onReload(): void }) {
  const summary = useRef<HTMLDivElement>(null);
  useEffect(() => summary.current?.focus(), [error]);
  if (!isApiError(error) || error.validationErrors.length === 0) {
    const stale = isApiError(error) && (error.code === "precondition_failed" || error.code === "edit_conflict");
    return (
      <div ref={summary} tabIndex={-1}>
        <ErrorMessage error={error} />
        {stale ? (
          <button type="button" className="button" onClick={onReload}>
            Load the latest version (discards your changes)
          </button>
        ) : null}
      </div>
    );
  }
  return (
    <div ref={summary} className="state state-error" role="alert" tabIndex={-1}>
      <p>The server refused the change; nothing was saved.</p>
      <ul className="problem-list">
        {general.map((problem) => (
          <li key={problem}>{problem}</li>
        ))}
        {[...byCapability].map(([id, problems]) => (
          <li key={id}>
            <a href={`#${capabilityAnchor(id)}`}>{names.get(id) ?? id}</a>: {problems.length === 1 ? "1 problem" : `${problems.length} problems`}, shown beside it.
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The capabilities form: the whole set is sent on Save, conditional on the version it was read at. */
export function CapabilitiesEditor({ assistant, registry, available, readOnlyReason, onSaved }: EditorProps) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<CapabilityDraft>(() => draftOf(assistant.capabilities, assistant.capabilityConfigs));
  const entries = useMemo(() => new Map(registry.map((entry) => [entry.id, entry])), [registry]);
  const names = useMemo(() => new Map(registry.map((entry) => [entry.id, entry.name])), [registry]);
  const configured = draft.enabled.filter((id) => (entries.get(id)?.configFields.length ?? 0) > 0);
  const config = useConfigFields(configured);
  const readOnly = readOnlyReason !== null;

  const save = useMutation({
    mutationFn: () =>
      ok(
        api.capabilities.updateCapabilities({
          params: { assistantId: assistant._id },
          headers: ifMatch(assistant.version),
          body: updateBody(draft, (id) => config.fields.get(id)?.fields ?? []),
        }),
      ),
    onMutate: () => onSaved(null),
    onSuccess: async (answer) => {
      onSaved(answer.message);
      await invalidateAssistant(queryClient, assistant._id);
    },
  });
  const problems = placeProblems(isApiError(save.error) ? save.error.validationErrors : [], new Set(entries.keys()));

  const toggle = (id: string, on: boolean) => setDraft((current) => ({ ...current, enabled: on ? [...current.enabled, id] : current.enabled.filter((other) => other !== id) }));
  const setConfig = (id: string, name: string, value: FieldDraft) =>
    setDraft((current) => ({ ...current, configs: { ...current.configs, [id]: { ...current.configs[id], [name]: value } } }));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate();
  };
  const count = new Set([...draft.enabled, ...registry.filter((entry) => entry.alwaysEnabled).map((entry) => entry.id)]).size;

  return (
    // The server checks every rule and names the capability each problem concerns: the browser's own checks would hide that.
    <form className="capabilities" onSubmit={submit} noValidate aria-label="Capabilities">
      {readOnlyReason ? <p className="hint">{readOnlyReason} You can see what it may do.</p> : null}
      <Counter count={count} limit={available.limit} tier={available.tier} />
      {save.isError ? <Refusal error={save.error} general={problems.general} byCapability={problems.byCapability} names={names} onReload={() => void invalidateAssistant(queryClient, assistant._id)} /> : null}
      {byCategory(registry).map(({ category, entries: group }) => (
        <section key={category} className="capability-group" aria-labelledby={categoryId(category)}>
          <h3 id={categoryId(category)}>{category}</h3>
          <div className="capability-list">
            {group.map((entry) => (
              <CapabilityItem
                key={entry.id}
                entry={entry}
                enabled={draft.enabled.includes(entry.id)}
                unavailable={available.ids.has(entry.id) ? null : unavailableReason(entry, assistant.type, available.tier)}
                readOnly={readOnly}
                fields={config.fields.get(entry.id)?.fields}
                fieldsError={config.fields.get(entry.id)?.error}
                config={draft.configs[entry.id]}
                problems={problems.byCapability.get(entry.id) ?? []}
                onToggle={(on) => toggle(entry.id, on)}
                onConfig={(name, value) => setConfig(entry.id, name, value)}
              />
            ))}
          </div>
        </section>
      ))}
      {readOnly ? null : (
        <div className="button-row capability-actions">
          <button type="submit" className="button button-primary" disabled={save.isPending || config.loading}>
            {save.isPending ? "Saving…" : "Save capabilities"}
          </button>
          <button type="button" className="button" onClick={() => {
              save.reset();
              setDraft(draftOf(assistant.capabilities, assistant.capabilityConfigs));
            }} disabled={save.isPending}>
            Discard changes
          </button>
        </div>
      )}
    </form>
  );
}
