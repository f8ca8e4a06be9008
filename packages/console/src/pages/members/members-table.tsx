import type { TRole, ZMember } from "@engram/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { z } from "zod";
import { api, ok } from "../../api/client";
import { ConfirmAction } from "../../ui/confirm-action";
import { ErrorMessage } from "../../ui/error-message";
import { formatDateTime } from "../../ui/format";
import { grantableRoles, roleNames, whyNotManage } from "./member-rules";
import { TableScroll } from "../../ui/table-scroll";

type Member = z.infer<typeof ZMember>;

interface RowProps {
  member: Member;
  viewerRole: TRole | undefined;
  isSelf: boolean;
}

function MemberRow({ member, viewerRole, isSelf }: RowProps) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<TRole>(member.role);
  const [failure, setFailure] = useState<unknown>(null);
  const selectId = useId();
  const refused = whyNotManage(viewerRole, member.role);
  const who = member.displayName || member.email;

  // The viewer's own role or membership may change: the session names both.
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: ["members"] }), isSelf ? queryClient.invalidateQueries({ queryKey: ["session"] }) : null]);

  const changeRole = useMutation({
    mutationFn: (next: TRole) => ok(api.organization.changeRole({ params: { userId: member.userId }, body: { role: next } })),
    onMutate: () => setFailure(null),
    onSuccess: () => refresh(),
    onError: (error) => {
      setFailure(error);
      setRole(member.role);
    },
  });
  const remove = async () => {
    setFailure(null);
    try {
      await ok(api.organization.removeMember({ params: { userId: member.userId }, body: {} }));
      await refresh();
    } catch (error) {
      // Shown beside the row it concerns (the dialog closes): "an organization needs an owner", …
      setFailure(error);
    }
  };

  const options = grantableRoles(viewerRole);
  return (
    <tr>
      <th scope="row">
        {who}
        {isSelf ? <span className="muted"> (you)</span> : null}
      </th>
      <td className="member-email">{member.email}</td>
      <td>
        {refused ? (
          roleNames[member.role]
        ) : (
          <div className="role-editor">
            <label htmlFor={selectId} className="visually-hidden">
              Role of {member.email}
            </label>
            <select id={selectId} value={role} onChange={(event) => setRole(event.target.value as TRole)} disabled={changeRole.isPending}>
              {(options.includes(member.role) ? options : [member.role, ...options]).map((option) => (
                <option key={option} value={option}>
                  {roleNames[option]}
                </option>
              ))}
            </select>
            {isSelf ? (
              // Your own role: a step down may not be reversible by you, so it is confirmed first.
              <ConfirmAction
                label="Save"
                title={`Change your own role to ${roleNames[role]}?`}
                description="You may lose the right to manage members, tokens and reflection, and only an owner or admin could give it back."
                confirmLabel="Change my role"
                disabled={role === member.role || changeRole.isPending}
                // A refusal is shown beside the row, as for removal; the dialog closes either way.
                onConfirm={() => changeRole.mutateAsync(role).catch(() => undefined)}
              />
            ) : (
              <button
                type="button"
                className="button"
                onClick={() => changeRole.mutate(role)}
                disabled={role === member.role || changeRole.isPending}
                aria-label={`Save role of ${member.email}`}
              >
                {changeRole.isPending ? "Saving…" : "Save"}
              </button>
            )}
          </div>
        )}
      </td>
      <td>{formatDateTime(member.joinedAt)}</td>
      <td>
        {refused ? (
          <span className="hint">{refused}</span>
        ) : (
          <ConfirmAction
            label="Remove"
            title={isSelf ? "Remove yourself?" : `Remove ${who}?`}
            description={
              isSelf
                ? "You will lose access to this organization at once, and your personal assistants here are deleted."
                : `${member.email} will lose access to this organization, and their personal assistants here are deleted.`
            }
            confirmLabel="Remove member"
            destructive
            onConfirm={remove}
          />
        )}
        {failure ? <ErrorMessage error={failure} /> : null}
      </td>
    </tr>
  );
}

/** Members and their roles; the controls appear only where the viewer's role allows the change. */
export function MembersTable({ members, viewerRole, viewerId }: { members: Member[]; viewerRole: TRole | undefined; viewerId: string }) {
  return (
    <TableScroll label="Members">
      <table>
        <caption className="visually-hidden">Members</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {members.map((member) => (
            <MemberRow key={`${member.userId}:${member.role}`} member={member} viewerRole={viewerRole} isSelf={member.userId === viewerId} />
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
