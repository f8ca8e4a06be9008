import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { Page, Panel } from "../../ui/page";
import { NextPageButton } from "../../ui/next-page-button";
import { QueryView } from "../../ui/query-view";
import { OneTimeSecret } from "../../ui/one-time-secret";
import { type AddedMember, AddMemberForm } from "./add-member-form";
import { MembersTable } from "./members-table";

function Added({ added, onDismiss }: { added: AddedMember; onDismiss(): void }) {
  if (!added.temporaryPassword) {
    return (
      <p className="notice" role="status">
        {added.email} was added. They already had an account: they sign in with their own password.
      </p>
    );
  }
  return (
    <OneTimeSecret
      label="Temporary password"
      secret={added.temporaryPassword}
      description={`An account was made for ${added.email}. Give them this password privately; they can change it on their Account page after signing in.`}
      onDismiss={onDismiss}
    />
  );
}

/** The organization's people: owners and admins add, change roles and remove; members read. */
export function MembersPage() {
  const { session, organization, canManage } = useSignedIn();
  const [added, setAdded] = useState<AddedMember | null>(null);
  const members = useInfiniteQuery({
    queryKey: ["members"],
    queryFn: ({ pageParam }) => ok(api.organization.listMembers({ query: { cursor: pageParam } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

  return (
    <Page title="Members">
      <Panel title="Add a member">
        {canManage ? (
          <>
            {added ? <Added added={added} onDismiss={() => setAdded(null)} /> : null}
            <AddMemberForm viewerRole={organization?.role} onAdded={setAdded} />
            <p className="hint">Only owners grant or change the owner role; an organization always keeps at least one owner.</p>
          </>
        ) : (
          <p className="hint">Only owners and admins add, change and remove members; you can see who belongs below.</p>
        )}
      </Panel>
      <Panel title="People">
        <QueryView query={members} loading="Loading members…" empty="No members." isEmpty={(data) => data.pages.every((page) => page.members.length === 0)}>
          {(data) => (
            <>
              <MembersTable members={data.pages.flatMap((page) => page.members)} viewerRole={organization?.role} viewerId={session.user.id} />
              <NextPageButton query={members} label="More members" />
            </>
          )}
        </QueryView>
      </Panel>
    </Page>
  );
}
