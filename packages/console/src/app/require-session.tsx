import { Navigate, Outlet, useLocation } from "react-router";
import { useSession } from "../session/session";
import { ErrorMessage } from "../ui/error-message";

/** Pages behind it need a session: without one, the person is sent to sign in and brought back after. */
export function RequireSession() {
  const { session, loading, error } = useSession();
  const location = useLocation();
  if (loading) {
    return (
      <p className="state state-loading" role="status">
        Loading…
      </p>
    );
  }
  if (error) {
    return (
      <main className="centered">
        <ErrorMessage error={error} onRetry={() => window.location.reload()} />
      </main>
    );
  }
  if (!session) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={next === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
