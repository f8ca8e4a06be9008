import type { TAssistantType, ZAssistantDetail } from "@engram/contract";
import { useInfiniteQuery, useQuery, type QueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { api, ok } from "../../api/client";

export type AssistantDetail = z.infer<typeof ZAssistantDetail>;

export const assistantTypeNames: Record<TAssistantType, string> = { org_shared: "Organization-wide", employee_personal: "Personal" };

/** The assistants the person may see, a page at a time. */
export const useAssistants = () =>
  useInfiniteQuery({
    queryKey: ["assistants"],
    queryFn: ({ pageParam }) => ok(api.assistants.list({ query: { cursor: pageParam } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

/** One assistant the person may see, with the version changes are based on. */
export const useAssistant = (assistantId: string) =>
  useQuery({ queryKey: ["assistant", assistantId, "detail"], queryFn: () => ok(api.assistants.get({ params: { assistantId } })) });

/** An If-Match header naming the version a change is based on. */
export const ifMatch = (version: number) => ({ "if-match": `"${version}"` });

/**
 * What a change to one assistant makes stale: the list, the assistant and its history. What it may have depends on
 * its type and the plan, which no change here touches; the capabilities routes are rate-limited tightly on Free.
 */
export function invalidateAssistant(queryClient: QueryClient, assistantId: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: ["assistants"] }),
    queryClient.invalidateQueries({ queryKey: ["assistant", assistantId, "detail"] }),
    queryClient.invalidateQueries({ queryKey: ["assistant", assistantId, "changes"] }),
  ]);
}

/** Whether the person may change the assistant: org_shared by owners and admins, a personal one by its owner. */
export function whyNotModify(assistant: AssistantDetail, userId: string, canManage: boolean): string | null {
  if (assistant.type === "org_shared") return canManage ? null : "Only owners and admins change organization-wide assistants.";
  return assistant.ownerUserId === userId ? null : "Only its owner changes a personal assistant.";
}
