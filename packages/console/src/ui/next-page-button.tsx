/** What a paged list's button reads of its infinite query. */
interface PagedQuery {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): Promise<unknown>;
}

/** Loads a paged list's next page; nothing once the last page is shown. */
export function NextPageButton({ query, label }: { query: PagedQuery; label: string }) {
  if (!query.hasNextPage) return null;
  return (
    <button type="button" className="button" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
      {query.isFetchingNextPage ? "Loading…" : label}
    </button>
  );
}
