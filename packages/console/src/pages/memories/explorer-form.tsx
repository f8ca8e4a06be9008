import { ZMemoryKind, ZMemorySource, ZMemoryState } from "@engram/contract";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, ok } from "../../api/client";
import { ErrorMessage } from "../../ui/error-message";
import { humanize } from "../../ui/format";
import type { ExplorerFilters, TMemorySource } from "./explorer-filters";
import { sourceName } from "./state-badge";

interface ExplorerFormProps {
  filters: ExplorerFilters;
  onSearch(form: FormData): void;
  onClear(): void;
}

interface ChoiceProps {
  label: string;
  name: string;
  value?: string;
  options: readonly string[];
  any: string;
  disabled?: (option: string) => boolean;
  show?: (option: string) => string;
}

function Choice({ label, name, value, options, any, disabled, show = humanize }: ChoiceProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value ?? ""}>
        <option value="">{any}</option>
        {options.map((option) => (
          <option key={option} value={option} disabled={disabled?.(option)}>
            {show(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The first page of the agents memories and tokens name, for the agent filter. */
function useAgents() {
  return useQuery({ queryKey: ["organization", "agents"], queryFn: () => ok(api.organization.listAgents({ query: {} })), staleTime: 60_000 });
}

/**
 * The agent filter: a choice among the organization's agents while they fit one page; past that, a slug typed
 * in, with the first page as suggestions.
 */
function AgentChoice({ value, agents }: { value?: string; agents?: { agents: Array<{ slug: string }>; nextCursor: string | null } }) {
  const id = useId();
  const suggestionsId = useId();
  const slugs = agents?.agents.map((agent) => agent.slug) ?? [];
  if (!agents?.nextCursor) return <Choice label="Agent" name="agent" value={value} options={agents ? slugs : value ? [value] : []} any="Any agent" show={(slug) => slug} />;
  return (
    <div className="field">
      <label htmlFor={id}>Agent</label>
      <input id={id} name="agent" defaultValue={value ?? ""} list={suggestionsId} maxLength={63} placeholder="Any agent" autoComplete="off" />
      <datalist id={suggestionsId}>
        {slugs.map((slug) => (
          <option key={slug} value={slug} />
        ))}
      </datalist>
    </div>
  );
}

/**
 * The explorer's filters: nothing runs until the person presses Search. A query ranks durable memories only, so
 * while one is typed the other states cannot be picked.
 */
export function ExplorerForm({ filters, onSearch, onClear }: ExplorerFormProps) {
  const queryId = useId();
  const subjectId = useId();
  const hintId = useId();
  const [query, setQuery] = useState(filters.q ?? "");
  const agents = useAgents();
  const ranking = query.trim() !== "";

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSearch(new FormData(event.currentTarget));
  };

  return (
    <form className="explorer-form" role="search" aria-label="Memories" onSubmit={submit}>
      <div className="field explorer-query">
        <label htmlFor={queryId}>Search</label>
        <input id={queryId} name="q" type="search" value={query} onChange={(event) => setQuery(event.target.value)} maxLength={2000} placeholder="How do we deploy payments?" aria-describedby={hintId} />
        <p id={hintId} className="field-hint">
          {ranking ? "Ranked by the retrieval engine: durable memories only, each with its score." : "Leave empty to list memories in any state, newest first."}
        </p>
      </div>
      <div className="filters">
        <Choice label="Kind" name="kind" value={filters.kind} options={ZMemoryKind.options} any="Any kind" />
        <Choice label="State" name="state" value={filters.state} options={ZMemoryState.options} any="Any state" disabled={(state) => ranking && state !== "durable"} />
        <AgentChoice value={filters.agent} agents={agents.data} />
        <div className="field">
          <label htmlFor={subjectId}>Subject</label>
          <input id={subjectId} name="subject" defaultValue={filters.subject ?? ""} maxLength={200} />
        </div>
        <Choice label="Source" name="source" value={filters.source} options={ZMemorySource.options} any="Any source" show={(source) => sourceName(source as TMemorySource)} />
        <div className="button-row">
          <button type="submit" className="button button-primary">
            Search
          </button>
          <button type="button" className="button" onClick={onClear}>
            Clear
          </button>
        </div>
      </div>
      {agents.isError ? <ErrorMessage error={agents.error} onRetry={() => void agents.refetch()} /> : null}
    </form>
  );
}
