import { useInfiniteQuery } from "@tanstack/react-query";
import { Link, useLocation, useParams } from "react-router";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { Page } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { MemoryActions } from "./memory-actions";
import { MemoryDetails, MemorySource } from "./memory-details";
import { MemoryHistory } from "./memory-history";

/** One memory: its details, where it came from, its history, and the state changes an owner or admin may make. */
export function MemoryPage() {
  const { memoryId = "" } = useParams();
  const { canManage } = useSignedIn();
  // Back to the search that led here, when one did.
  const explorerSearch = (useLocation().state as { explorerSearch?: string } | null)?.explorerSearch ?? "";
  // The memory with the first page of its history; later pages of a long history are read when asked for.
  const memory = useInfiniteQuery({
    queryKey: ["memory", memoryId],
    queryFn: ({ pageParam }) => ok(api.memory.get({ params: { id: memoryId }, query: { historyCursor: pageParam } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextHistoryCursor ?? undefined,
  });
  return (
    <Page title="Memory" actions={<Link to={`/memories${explorerSearch}`}>Back to memories</Link>}>
      <QueryView query={memory} loading="Loading the memory…">
        {({ pages }) => {
          const { memory: details, source } = pages[0]!;
          return (
            <>
              <MemoryDetails memory={details} />
              <MemoryActions id={details.id} state={details.state} canManage={canManage} />
              <MemorySource source={source} />
              <MemoryHistory
                history={pages.flatMap((page) => page.history)}
                more={memory.hasNextPage ? { loading: memory.isFetchingNextPage, load: () => void memory.fetchNextPage() } : null}
              />
            </>
          );
        }}
      </QueryView>
    </Page>
  );
}
