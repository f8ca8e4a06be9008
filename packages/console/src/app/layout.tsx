import type { TEnvironment } from "@engram/contract";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useId, useRef } from "react";
import { Link, NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { api, ok } from "../api/client";
import { useSignedIn } from "../session/session";
import { ErrorMessage } from "../ui/error-message";
import { EnvironmentOptions } from "../ui/environment-options";

const sections = [
  { to: "/", label: "Overview", end: true },
  { to: "/memories", label: "Memories" },
  { to: "/candidates", label: "Candidates" },
  { to: "/events", label: "Events" },
  { to: "/assistants", label: "Assistants" },
  { to: "/reflection", label: "Reflection" },
  { to: "/tokens", label: "Tokens" },
  { to: "/members", label: "Members" },
] as const;

function OrganizationSwitcher() {
  const { session, adopt } = useSignedIn();
  const id = useId();
  const navigate = useNavigate();
  const change = useMutation({
    mutationFn: (organizationId: string) => ok(api.auth.switchOrganization({ body: { organizationId } })),
    onSuccess: (next) => {
      adopt(next);
      void navigate("/");
    },
  });
  if (session.organizations.length === 0) return null;
  return (
    <div className="switcher">
      <label htmlFor={id}>Organization</label>
      <select id={id} value={session.activeOrganizationId ?? ""} onChange={(event) => change.mutate(event.target.value)} disabled={change.isPending}>
        {session.organizations.map((org) => (
          <option key={org.id} value={org.id}>
            {org.name}
          </option>
        ))}
      </select>
      {change.isError ? <ErrorMessage error={change.error} /> : null}
    </div>
  );
}

function EnvironmentSwitcher() {
  const { environment, setEnvironment } = useSignedIn();
  const id = useId();
  return (
    <div className="switcher">
      <label htmlFor={id}>Environment</label>
      <select id={id} value={environment} onChange={(event) => setEnvironment(event.target.value as TEnvironment)}>
        <EnvironmentOptions />
      </select>
    </div>
  );
}

function SignOut() {
  const { session, clear } = useSignedIn();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => ok(api.auth.logout({ body: {} })),
    onSuccess: () => {
      clear();
      void navigate("/sign-in", { replace: true });
    },
  });
  return (
    <div className="account">
      <Link className="account-email" to="/account" aria-label={`Account: ${session.user.email}`}>
        {session.user.email}
      </Link>
      <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        Sign out
      </button>
      {signOut.isError ? <ErrorMessage error={signOut.error} /> : null}
    </div>
  );
}

/** After moving to another page (not on the first), focus goes to its content, as a full page load would. */
function useFocusOnNavigation() {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById("main")?.focus();
  }, [pathname]);
}

/** The frame of every signed-in page: skip link, header with the switchers, navigation, and the page. */
export function Layout() {
  const { organization } = useSignedIn();
  useFocusOnNavigation();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Engram</span>
        <OrganizationSwitcher />
        <EnvironmentSwitcher />
        <SignOut />
      </header>
      <nav className="sidebar" aria-label="Sections">
        <ul>
          {sections.map((section) => (
            <li key={section.to}>
              <NavLink to={section.to} end={"end" in section}>
                {section.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        {organization ? (
          <Outlet />
        ) : (
          <p className="state state-empty">You are not a member of any organization yet: ask an owner or admin to add you.</p>
        )}
      </main>
    </div>
  );
}
