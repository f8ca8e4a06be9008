import type { ZTokenSummary } from "@engram/contract";
import { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { api, ok } from "../../api/client";
import { ConfirmAction } from "../../ui/confirm-action";
import { formatDateTime, humanize } from "../../ui/format";
import { TableScroll } from "../../ui/table-scroll";

type Token = z.infer<typeof ZTokenSummary>;

function RevokeToken({ token }: { token: Token }) {
  const queryClient = useQueryClient();
  return (
    <ConfirmAction
      label="Revoke"
      title={`Revoke ${token.name}?`}
      description={`Requests with the token ${token.prefix}… will be refused from now on. This cannot be undone: make a new token to replace it.`}
      confirmLabel="Revoke token"
      destructive
      onConfirm={async () => {
        await ok(api.organization.revokeToken({ params: { tokenId: token.id }, body: {} }));
        await queryClient.invalidateQueries({ queryKey: ["tokens"] });
      }}
    />
  );
}

/** Every token of the organization, revoked ones included; revoking is for owners and admins. */
export function TokensTable({ tokens, canManage }: { tokens: Token[]; canManage: boolean }) {
  return (
    <TableScroll label="Access tokens">
      <table>
        <caption className="visually-hidden">Access tokens</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Scopes</th>
            <th scope="col">Environment</th>
            <th scope="col">Agents</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            {canManage ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id}>
              <th scope="row">{token.name}</th>
              <td>
                <code>{token.prefix}…</code>
              </td>
              <td>
                <ul className="inline-list">
                  {token.scopes.map((scope) => (
                    <li key={scope}>
                      <code>{scope}</code>
                    </li>
                  ))}
                </ul>
              </td>
              <td>{token.environment ? humanize(token.environment) : "Any"}</td>
              <td>{token.agents && token.agents.length > 0 ? token.agents.join(", ") : <span className="muted">Any</span>}</td>
              <td>{formatDateTime(token.createdAt)}</td>
              <td>
                {token.revokedAt ? (
                  <span className="badge badge-danger">Revoked {formatDateTime(token.revokedAt)}</span>
                ) : (
                  <span className="badge badge-ok">Active</span>
                )}
              </td>
              {canManage ? <td>{token.revokedAt ? null : <RevokeToken token={token} />}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
