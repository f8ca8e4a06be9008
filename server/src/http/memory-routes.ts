import { contract } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { Response } from "express";
import { resolveAgent } from "../domain/access/caller";
import type { HistoryPageQuery } from "../domain/memory/history-page";
import type { ControlInput, EncodeInput, MemoryService, RetrieveInput } from "../domain/memory/memory-service";
import { callerOf } from "./auth";

const s = initServer();

/** What every memory route hands its handler, whichever path form it came by. */
interface RouteInput<TBody = unknown> {
  params?: { agentSlug?: string; id?: string };
  headers: { "x-service-agent"?: string; "idempotency-key"?: string };
  body?: TBody;
  res: Response;
}

/** Thin handlers: resolve the caller and agent, call one service method, return its result. */
export function memoryRoutes(memories: MemoryService) {
  const actingAs = ({ params, headers, res }: RouteInput) => {
    const caller = callerOf(res);
    return { caller, agent: resolveAgent(caller, params?.agentSlug, headers["x-service-agent"]) };
  };
  const memoryId = (input: RouteInput) => input.params?.id ?? "";

  const encode = async (input: RouteInput<EncodeInput>) => {
    const { caller, agent } = actingAs(input);
    const result = await memories.encode(caller, agent, input.body!, input.headers["idempotency-key"]);
    if (result.replayed) input.res.setHeader("Idempotent-Replayed", "true");
    return { status: 201 as const, body: result.body };
  };

  const retrieve = async (input: RouteInput<RetrieveInput>) => {
    const { caller, agent } = actingAs(input);
    return { status: 200 as const, body: await memories.retrieve(caller, agent, input.body!) };
  };

  const control = (action: "reinforce" | "suppress" | "restore") => async (input: RouteInput<ControlInput>) => {
    const { caller, agent } = actingAs(input);
    return { status: 200 as const, body: await memories[action](caller, agent, memoryId(input), input.body ?? {}) };
  };

  const provenance = async (input: RouteInput & { query: HistoryPageQuery }) => {
    const { caller, agent } = actingAs(input);
    return { status: 200 as const, body: await memories.provenance(caller, agent, memoryId(input), input.query) };
  };

  const tombstone = async (input: RouteInput) => {
    const { caller, agent } = actingAs(input);
    return { status: 200 as const, body: await memories.tombstone(caller, agent, memoryId(input)) };
  };

  return s.router(contract.memory, {
    encodeForAgent: encode,
    retrieveForAgent: retrieve,
    recallForAgent: retrieve,
    searchForAgent: retrieve,
    reinforceForAgent: control("reinforce"),
    suppressForAgent: control("suppress"),
    restoreForAgent: control("restore"),
    provenanceForAgent: provenance,
    deleteForAgent: tombstone,
    encode,
    retrieve,
    recall: retrieve,
    search: retrieve,
    reinforce: control("reinforce"),
    suppress: control("suppress"),
    restore: control("restore"),
    provenance,
    delete: tombstone,
  });
}
