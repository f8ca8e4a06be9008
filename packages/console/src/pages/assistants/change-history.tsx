import type { ZAssistantChange } from "@engram/contract";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { api, ok } from "../../api/client";
import { formatDateTime } from "../../ui/format";
import { QueryView } from "../../ui/query-view";
import { NextPageButton } from "../../ui/next-page-button";
import { fieldLabel } from "./capability-rules";

type Change = z.infer<typeof ZAssistantChange>;

const actionNames: Record<Change["action"], string> = {
  created: "Created",
  renamed: "Renamed",
  capabilities_changed: "Capabilities changed",
  deleted: "Deleted",
};

const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const show = (value: unknown) => (Array.isArray(value) ? value.join(", ") || "none" : String(value));

/** What a change did, in a sentence or two: names rather than ids where the registry knows them. */
function describe(change: Change, nameOf: (id: string) => string): string[] {
  const before = change.before ?? {};
  const after = change.after;
  switch (change.action) {
    case "created":
      return [`Created as “${String(after.name)}”.`];
    case "renamed":
      return [`From “${String(before.name)}” to “${String(after.name)}”.`];
    case "deleted":
      return [`“${String(before.name)}” was deleted.`];
    case "capabilities_changed": {
      const was = list(before.capabilities);
      const now = list(after.capabilities);
      const lines: string[] = [];
      const added = now.filter((id) => !was.includes(id));
      const removed = was.filter((id) => !now.includes(id));
      if (added.length > 0) lines.push(`Turned on: ${added.map(nameOf).join(", ")}.`);
      if (removed.length > 0) lines.push(`Turned off: ${removed.map(nameOf).join(", ")}.`);
      for (const [id, config] of Object.entries(record(after.capabilityConfigs))) {
        const settings = Object.entries(record(config)).map(([name, value]) => `${fieldLabel(name).toLowerCase()} ${show(value)}`);
        if (settings.length > 0) lines.push(`${nameOf(id)}: ${settings.join("; ")}.`);
      }
      lines.push(`Enabled now: ${now.map(nameOf).join(", ") || "none"}.`);
      return lines;
    }
  }
}

/** Who changed the assistant, what before and after, and when; newest first, a page at a time. */
export function ChangeHistory({ assistantId, nameOf }: { assistantId: string; nameOf(id: string): string }) {
  const changes = useInfiniteQuery({
    queryKey: ["assistant", assistantId, "changes"],
    queryFn: ({ pageParam }) => ok(api.assistants.changes({ params: { assistantId }, query: { cursor: pageParam } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  return (
    <QueryView query={changes} loading="Loading the change history…" empty="No changes recorded." isEmpty={(data) => data.pages.every((page) => page.changes.length === 0)}>
      {(data) => (
        <>
          <ol className="timeline change-history">
            {data.pages.flatMap((page) => page.changes).map((change) => (
              <li key={change.id}>
                <h3 className="change-title">
                  {actionNames[change.action]} <span className="muted">(version {change.version})</span>
                </h3>
                <p className="hint">
                  {formatDateTime(change.createdAt)} by {change.actor}
                </p>
                {describe(change, nameOf).map((line) => (
                  <p key={line} className="change-line">
                    {line}
                  </p>
                ))}
                <details>
                  <summary>Before and after</summary>
                  <pre>{JSON.stringify({ before: change.before, after: change.after }, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ol>
          <NextPageButton query={changes} label="Earlier changes" />
        </>
      )}
    </QueryView>
  );
}
