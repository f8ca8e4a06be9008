import { type TEnvironment, type TExplorerMemory, type TMemory, type TMemoryKind, type TMemoryState, type TProvenance, memoryLimits, ZMemoryState } from "@engram/contract";
import type { EventRepository } from "../events/ports";
import { AppError } from "../kernel/errors";
import { decodeCursor, encodeCursor } from "../kernel/page-cursor";
import { type OrgActor, requireManager } from "../people/roles";
import type { Retrieval } from "../retrieval/retrieval";
import { historyPage, type HistoryPageQuery } from "./history-page";
import { memoryView, provenanceView } from "./memory-view";
import { newestMatching } from "./newest-matching";
import type { MemoryRepository } from "./ports";
import type { MemoryRecord, MemorySourceKind } from "./records";
import type { MemoryLookup, MemoryStateChanges, StateChange } from "./state-changes";

/** The explorer's filters; `q` switches from listing to ranking. */
export interface ExplorerQuery {
  environment: TEnvironment;
  q?: string;
  kind?: TMemoryKind;
  state?: TMemoryState;
  agent?: string;
  subject?: string;
  source?: MemorySourceKind;
  cursor?: string;
  limit: number;
}

export interface ExplorerPage {
  ranked: boolean;
  memories: TExplorerMemory[];
  nextCursor: string | null;
}

export type ExplorerControl = "reinforce" | StateChange;

/** The explorer's filters, for a stored record and for retrieval's view alike (they name the agent differently). */
function passesFilters(query: ExplorerQuery, memory: { memoryKind: string; subject: string | null; source: string }, agent: string | null): boolean {
  return (
    (!query.kind || memory.memoryKind === query.kind) &&
    (!query.agent || agent === query.agent) &&
    (!query.subject || memory.subject === query.subject) &&
    (!query.source || memory.source === query.source)
  );
}

/**
 * The console's view of memories, for signed-in people: everyone in the organization searches and reads any
 * memory of it (every environment, every agent); owners and admins change their state, through the same
 * state changes and history as access tokens.
 */
export function memoryExplorer(deps: {
  memories: Pick<MemoryRepository, "findById" | "history" | "listNewest">;
  events: Pick<EventRepository, "find">;
  retrieve: Retrieval;
  changes: MemoryStateChanges;
}) {
  const { memories, events, retrieve, changes } = deps;

  /** Another organization's memory is as absent as a missing one. */
  const inOrganization = (actor: OrgActor): MemoryLookup => async (id) => {
    const memory = await memories.findById(id);
    return memory && memory.orgId === actor.orgId ? memory : null;
  };

  /** The real retrieval engine ranks the scope's durable memories; the filters then narrow its answer. */
  async function ranked(actor: OrgActor, query: ExplorerQuery & { q: string }): Promise<ExplorerPage> {
    if (query.state && query.state !== "durable") {
      throw new AppError("invalid_parameter", `state: a search with q ranks durable memories only; leave out q to list ${query.state} memories.`, "state");
    }
    if (query.cursor !== undefined) throw new AppError("invalid_parameter", "cursor: a search with q answers a single page; leave out cursor.", "cursor");
    const scope = { orgId: actor.orgId, environment: query.environment, agentSlug: query.agent ?? null };
    const { response: answer } = await retrieve(scope, { query: query.q, limit: memoryLimits.retrieveMaxLimit, includeContext: false, contextMode: "full" });
    const wanted = (memory: TMemory) => passesFilters(query, memory, memory.agent);
    return { ranked: true, memories: answer.memories.filter(wanted).slice(0, query.limit), nextCursor: null };
  }

  /** Memories in any state (or the one asked for), newest first, a page at a time. */
  async function listed(actor: OrgActor, query: ExplorerQuery): Promise<ExplorerPage> {
    const filtered = Boolean(query.kind || query.agent || query.subject || query.source);
    const wanted = (memory: MemoryRecord) => passesFilters(query, memory, memory.agentSlug);
    const scope = { orgId: actor.orgId, environment: query.environment, states: query.state ? [query.state] : ZMemoryState.options };
    const { items, next } = await newestMatching(memories, scope, filtered ? wanted : null, decodeCursor(query.cursor), query.limit);
    return { ranked: false, memories: items.map((memory) => ({ ...memoryView(memory), score: null })), nextCursor: next ? encodeCursor(next) : null };
  }

  return {
    search: (actor: OrgActor, query: ExplorerQuery): Promise<ExplorerPage> => (query.q ? ranked(actor, { ...query, q: query.q }) : listed(actor, query)),

    async get(actor: OrgActor, id: string, page: HistoryPageQuery): Promise<TProvenance> {
      const memory = await inOrganization(actor)(id);
      if (!memory) throw new AppError("memory_not_found", `No memory ${id}.`, "id");
      const event = memory.eventId ? await events.find(memory.eventId) : null;
      return provenanceView(memory, await historyPage(memories, id, page), event);
    },

    /** Reinforces, suppresses, restores or tombstones a memory, recording the person and the reason. */
    async control(actor: OrgActor, id: string, action: ExplorerControl, input: { reason?: string; requestId: string | null }): Promise<{ memory: TMemory }> {
      requireManager(actor, "change a memory's state");
      const author = { actor: actor.label, tokenId: null, requestId: input.requestId };
      const lookup = inOrganization(actor);
      return action === "reinforce" ? changes.reinforce(lookup, id, author, input.reason) : changes.change(lookup, id, action, author, input.reason);
    },
  };
}

export type MemoryExplorer = ReturnType<typeof memoryExplorer>;
