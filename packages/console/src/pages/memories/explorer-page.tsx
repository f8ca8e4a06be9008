import { explorerLimits } from "@engram/contract";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useSearchParams } from "react-router";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { humanize } from "../../ui/format";
import { Page, Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { NextPageButton } from "../../ui/next-page-button";
import { filtersFrom, paramsFrom } from "./explorer-filters";
import { ExplorerForm } from "./explorer-form";
import { ExplorerResults } from "./explorer-results";

/** Searches with the retrieval engine, or lists memories by filter; the filters live in the URL. */
export function ExplorerPage() {
  const { environment } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFrom(params), [params]);
  const search = useInfiniteQuery({
    queryKey: ["memories", "search", environment, filters],
    queryFn: ({ pageParam }) => ok(api.memory.search({ query: { environment, ...filters, cursor: pageParam, limit: explorerLimits.defaultLimit } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

  return (
    <Page title="Memories">
      <p className="muted">
        Memories in the <strong>{humanize(environment)}</strong> environment, every agent included.
      </p>
      {/* Keyed by the URL so Back and shared links refill the form with the filters they name. */}
      <ExplorerForm key={params.toString()} filters={filters} onSearch={(form) => setParams(paramsFrom(form))} onClear={() => setParams(new URLSearchParams())} />
      <Panel title={filters.q ? "Search results" : "Newest memories"}>
        <QueryView
          query={search}
          loading="Loading memories…"
          isEmpty={(data) => data.pages.every((page) => page.memories.length === 0) && !data.pages.at(-1)?.nextCursor}
          empty={<p>{filters.q ? "No durable memory matches this search and these filters." : "No memories match these filters."}</p>}
        >
          {(data) => {
            const memories = data.pages.flatMap((page) => page.memories);
            return (
              <>
                {memories.length > 0 ? (
                  <ExplorerResults memories={memories} ranked={data.pages[0]?.ranked ?? false} />
                ) : (
                  // A rare filter is checked a stretch of memories per request: none matched in this one yet.
                  <p className="state state-empty">No match among the newest memories looked at so far; older ones are left to look through.</p>
                )}
                <NextPageButton query={search} label={memories.length > 0 ? "Load more" : "Look further"} />
              </>
            );
          }}
        </QueryView>
      </Panel>
    </Page>
  );
}
