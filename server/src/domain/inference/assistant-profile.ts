import type { TChatMessage } from "@engram/contract";
import type { AssistantRecord } from "../assistants/records";
import { findCapability } from "../capabilities/registry";

/** Memories retrieved for a chat request when nothing says otherwise. */
export const DEFAULT_CHAT_MEMORIES = 10;

/** How a chat request is served: by the gateway's defaults, or as one assistant with its enabled capabilities. */
export interface ChatProfile {
  assistant: { id: string; name: string; capabilities: readonly string[] } | null;
  /** Whether organization memory is searched and injected (search_memory). */
  memory: boolean;
  /** How many memories retrieval may return (search_memory's maxMemories). */
  memoryLimit: number;
  /** Whether answers name the memories they drew on (cite_sources). */
  citeSources: boolean;
  /** A system message telling the model who it is and what it may do; null without an assistant. */
  instructions: TChatMessage | null;
}

/** Without an assistant the gateway grounds every answer in memory and cites it, as it always has. */
export const defaultChatProfile: ChatProfile = { assistant: null, memory: true, memoryLimit: DEFAULT_CHAT_MEMORIES, citeSources: true, instructions: null };

/**
 * What an assistant's capabilities mean for one chat request. Engram carries out answering, searching memory
 * and citing sources itself; every other capability is named to the model and left to the caller's application.
 */
export function chatProfileOf(assistant: AssistantRecord): ChatProfile {
  const enabled = new Set(assistant.capabilities);
  const memory = enabled.has("search_memory");
  const maxMemories = assistant.capabilityConfigs.search_memory?.maxMemories;
  const citeSources = enabled.has("cite_sources");
  const names = assistant.capabilities.map((id) => findCapability(id)?.name ?? id);
  const content = [
    `You are ${JSON.stringify(assistant.name)}, an assistant of this organization.`,
    memory ? "Answer from the organization memory provided when it bears on the question." : "Answer without organization memory: none is provided to you.",
    citeSources ? "Cite each memory you use by its bracketed number." : "Do not cite memory numbers or ids.",
    `Your enabled capabilities: ${names.join(", ")}. Do not offer to do anything else.`,
  ].join(" ");
  return {
    assistant: { id: assistant.id, name: assistant.name, capabilities: assistant.capabilities },
    memory,
    memoryLimit: typeof maxMemories === "number" ? maxMemories : DEFAULT_CHAT_MEMORIES,
    citeSources,
    instructions: { role: "system", content },
  };
}
