import type { ComponentType } from "react";
import { createBrowserRouter } from "react-router";
import { Layout } from "./layout";
import { RequireSession } from "./require-session";

/** A page loaded on first visit, so the first page's JavaScript stays small (see scripts/check-budget.mjs). */
const page = <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType) => async () => ({ Component: pick(await load()) });

/** Shown while the first page's code loads. */
function PageLoading() {
  return (
    <p className="state state-loading" role="status">
      Loading…
    </p>
  );
}

export const router = createBrowserRouter([
  { path: "/sign-in", lazy: page(() => import("../pages/sign-in/sign-in-page"), (m) => m.SignInPage), HydrateFallback: PageLoading },
  {
    element: <RequireSession />,
    HydrateFallback: PageLoading,
    children: [
      {
        element: <Layout />,
        children: [
          { index: true, lazy: page(() => import("../pages/overview/overview-page"), (m) => m.OverviewPage) },
          { path: "memories", lazy: page(() => import("../pages/memories/explorer-page"), (m) => m.ExplorerPage) },
          { path: "memories/:memoryId", lazy: page(() => import("../pages/memories/memory-page"), (m) => m.MemoryPage) },
          { path: "candidates", lazy: page(() => import("../pages/candidates/candidates-page"), (m) => m.CandidatesPage) },
          { path: "events", lazy: page(() => import("../pages/events/events-page"), (m) => m.EventsPage) },
          { path: "assistants", lazy: page(() => import("../pages/assistants/assistants-page"), (m) => m.AssistantsPage) },
          { path: "assistants/:assistantId", lazy: page(() => import("../pages/assistants/assistant-page"), (m) => m.AssistantPage) },
          { path: "reflection", lazy: page(() => import("../pages/reflection/reflection-page"), (m) => m.ReflectionPage) },
          { path: "tokens", lazy: page(() => import("../pages/tokens/tokens-page"), (m) => m.TokensPage) },
          { path: "members", lazy: page(() => import("../pages/members/members-page"), (m) => m.MembersPage) },
          { path: "account", lazy: page(() => import("../pages/account/account-page"), (m) => m.AccountPage) },
          { path: "*", lazy: page(() => import("../pages/not-found-page"), (m) => m.NotFoundPage) },
        ],
      },
    ],
  },
]);
