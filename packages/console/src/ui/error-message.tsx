import { isApiError } from "../api/api-error";

const describe = (error: unknown) => (error instanceof Error ? error.message : "Something went wrong.");

/** A failure as the person can act on it: the server's message, its code, and a retry when one may help. */
export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const code = isApiError(error) ? error.code : null;
  return (
    <div className="state state-error" role="alert">
      <p>
        {describe(error)}
        {code ? <span className="error-code"> ({code})</span> : null}
      </p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
