import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { isRefusal } from "../api/api-error";
import { ErrorMessage } from "./error-message";

interface QueryViewProps<T> {
  query: UseQueryResult<T>;
  /** What is loading, for screen readers: "Loading memories…". */
  loading: string;
  /** Shown instead of the children when the data is empty. */
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}

/** The loading, error and empty states every page shows around its data. */
export function QueryView<T>({ query, loading, empty, isEmpty, children }: QueryViewProps<T>) {
  if (query.isPending) {
    return (
      <p className="state state-loading" role="status">
        {loading}
      </p>
    );
  }
  if (query.isError) {
    // Asking again cannot change a refusal (404, 403, 400); it may help after a network failure, a 429 or a 5xx.
    const mayHelp = !isRefusal(query.error) || query.error.status === 429;
    return <ErrorMessage error={query.error} onRetry={mayHelp ? () => void query.refetch() : undefined} />;
  }
  if (empty !== undefined && isEmpty?.(query.data)) return <div className="state state-empty">{empty}</div>;
  return <>{children(query.data)}</>;
}
