import type { TEnvironment, TSession } from "@engram/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import { api, ok, rememberCsrfToken } from "../api/client";
import { isApiError } from "../api/api-error";

export const environments: readonly TEnvironment[] = ["test", "staging", "production"];
const environmentKey = "engram.environment";

/** The signed-in person (null when signed out) and the environment the pages look at. */
interface SessionState {
  session: TSession | null;
  loading: boolean;
  error: unknown;
  environment: TEnvironment;
  setEnvironment(environment: TEnvironment): void;
  /** Store a session just answered by sign-in or an organization switch, and refetch every page's data. */
  adopt(session: TSession): void;
  /** Forget everything cached: after sign-out. */
  clear(): void;
}

const SessionContext = createContext<SessionState | null>(null);

async function currentSession(): Promise<TSession | null> {
  try {
    const session = await ok(api.auth.me());
    rememberCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (isApiError(error) && error.status === 401) return null;
    throw error;
  }
}

function storedEnvironment(): TEnvironment {
  const stored = localStorage.getItem(environmentKey);
  return environments.includes(stored as TEnvironment) ? (stored as TEnvironment) : "production";
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ["session"], queryFn: currentSession, staleTime: 60_000 });
  const [environment, setStoredEnvironment] = useState(storedEnvironment);

  const setEnvironment = useCallback((next: TEnvironment) => {
    localStorage.setItem(environmentKey, next);
    setStoredEnvironment(next);
  }, []);
  const adopt = useCallback(
    (session: TSession) => {
      rememberCsrfToken(session.csrfToken);
      queryClient.removeQueries({ predicate: (cached) => cached.queryKey[0] !== "session" });
      queryClient.setQueryData(["session"], session);
    },
    [queryClient],
  );
  const clear = useCallback(() => {
    rememberCsrfToken("");
    // The session query stays (its observer lives in this provider); every page's data goes.
    queryClient.setQueryData(["session"], null);
    queryClient.removeQueries({ predicate: (cached) => cached.queryKey[0] !== "session" });
  }, [queryClient]);

  const value = useMemo<SessionState>(
    () => ({ session: query.data ?? null, loading: query.isPending, error: query.error, environment, setEnvironment, adopt, clear }),
    [query.data, query.isPending, query.error, environment, setEnvironment, adopt, clear],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error("useSession is used outside SessionProvider");
  return state;
}

/** The signed-in session; only for pages behind RequireSession. */
export function useSignedIn() {
  const state = useSession();
  if (!state.session) throw new Error("useSignedIn is used on a page without a session");
  const organization = state.session.organizations.find((org) => org.id === state.session?.activeOrganizationId) ?? null;
  return { ...state, session: state.session, organization, canManage: organization?.role === "owner" || organization?.role === "admin" };
}
