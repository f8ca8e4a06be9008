import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { isRefusal } from "./api/api-error";
import { whenSessionEnds } from "./api/client";
import { router } from "./app/routes";
import { SessionProvider } from "./session/session";
import "./styles.css";

const queryClient: QueryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal (4xx) will not change by asking again; a network failure or 5xx may.
      retry: (failures, error) => failures < 2 && !isRefusal(error),
    },
  },
});

// A session that ended (signed out elsewhere, expired) shows as signed out, whichever call found out, which sends
// the person to sign in and back to the same page after.
whenSessionEnds(() => queryClient.setQueryData(["session"], null));

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
