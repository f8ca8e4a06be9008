import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { api, ok } from "../../api/client";
import { useSession } from "../../session/session";
import { ErrorMessage } from "../../ui/error-message";

/**
 * Only a path of this site, read as the browser will read it (backslashes as slashes, tabs and newlines dropped,
 * dot segments resolved): never send a person elsewhere after signing in.
 */
function safeNext(next: string | null): string {
  if (!next?.startsWith("/")) return "/";
  const { origin } = window.location;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return "/";
  }
  if (url.origin !== origin || url.pathname.startsWith("//")) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}

export function SignInPage() {
  const { session, adopt } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const next = safeNext(params.get("next"));
  const signIn = useMutation({
    mutationFn: (body: { email: string; password: string }) => ok(api.auth.login({ body })),
    onSuccess: (signedIn) => {
      adopt(signedIn);
      void navigate(next, { replace: true });
    },
  });
  useEffect(() => {
    document.title = "Sign in · Engram";
  }, []);

  if (session && !signIn.isPending) return <Navigate to={next} replace />;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate({ email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") });
  };

  return (
    <main className="centered" id="main">
      <form className="sign-in card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Engram</h1>
        <div className="field">
          <label htmlFor="email">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required maxLength={320} autoFocus />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={1024} />
        </div>
        {signIn.isError ? <ErrorMessage error={signIn.error} /> : null}
        <button type="submit" className="button button-primary" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </button>
        <p className="hint">The first start of the server prints the administrator's email and password.</p>
      </form>
    </main>
  );
}
