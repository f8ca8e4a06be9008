import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { Page, Panel } from "../../ui/page";
import { NextPageButton } from "../../ui/next-page-button";
import { QueryView } from "../../ui/query-view";
import { type CreatedToken, CreateTokenForm } from "./create-token-form";
import { OneTimeSecret } from "../../ui/one-time-secret";
import { TokensTable } from "./tokens-table";

/** Access tokens for `/v1`: members read the list; owners and admins create and revoke. */
export function TokensPage() {
  const { canManage } = useSignedIn();
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const tokens = useInfiniteQuery({
    queryKey: ["tokens"],
    queryFn: ({ pageParam }) => ok(api.organization.listTokens({ query: { cursor: pageParam } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

  return (
    <Page title="Tokens">
      <Panel title="New token">
        {canManage ? (
          <>
            {created ? (
              <OneTimeSecret
                label="Token secret"
                secret={created.secret}
                description={`The token ${created.name} was created. Send it as "Authorization: Bearer <token>" to /v1.`}
                onDismiss={() => setCreated(null)}
              />
            ) : null}
            <CreateTokenForm onCreated={setCreated} />
          </>
        ) : (
          <p className="hint">Only owners and admins create and revoke tokens; you can see the list below.</p>
        )}
      </Panel>
      <Panel title="All tokens">
        <QueryView query={tokens} loading="Loading tokens…" empty="No tokens yet." isEmpty={(data) => data.pages.every((page) => page.tokens.length === 0)}>
          {(data) => (
            <>
              <TokensTable tokens={data.pages.flatMap((page) => page.tokens)} canManage={canManage} />
              <NextPageButton query={tokens} label="More tokens" />
            </>
          )}
        </QueryView>
      </Panel>
    </Page>
  );
}
