import { type TMemoryKind, type TMemoryState, ZMemoryKind, ZMemorySource, ZMemoryState } from "@engram/contract";
import type { z } from "zod";

export type TMemorySource = z.infer<typeof ZMemorySource>;

/** The explorer's filters, as kept in the page's URL so a search can be shared and Back returns to it. */
export interface ExplorerFilters {
  q?: string;
  kind?: TMemoryKind;
  state?: TMemoryState;
  agent?: string;
  subject?: string;
  source?: TMemorySource;
}

const filterNames = ["q", "kind", "state", "agent", "subject", "source"] as const;

const text = (value: string | null) => (value && value.trim() ? value.trim() : undefined);
const oneOf = <T extends string>(options: readonly T[], value: string | null) => (options.includes(value as T) ? (value as T) : undefined);

/** Reads the filters from search params, dropping empty values and unknown enum values. */
export function filtersFrom(params: URLSearchParams): ExplorerFilters {
  const filters: ExplorerFilters = {
    q: text(params.get("q")),
    kind: oneOf(ZMemoryKind.options, params.get("kind")),
    state: oneOf(ZMemoryState.options, params.get("state")),
    agent: text(params.get("agent")),
    subject: text(params.get("subject")),
    source: oneOf(ZMemorySource.options, params.get("source")),
  };
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as ExplorerFilters;
}

/** The search params for a submitted filter form: only the fields that have a value. */
export function paramsFrom(form: FormData): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of filterNames) {
    const value = String(form.get(name) ?? "").trim();
    if (value) params.set(name, value);
  }
  return params;
}
