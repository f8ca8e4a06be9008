import { type TEnvironment, type TScope, ZScope } from "@engram/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId } from "react";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { ErrorMessage } from "../../ui/error-message";
import { EnvironmentOptions } from "../../ui/environment-options";

export interface CreatedToken {
  name: string;
  secret: string;
}

/** "a, b c" → ["a", "b", "c"]: agent slugs separated by commas or spaces. */
const parseAgents = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The first agents by slug, as a reminder of how they are spelled. */
const KNOWN_AGENTS_SHOWN = 20;

function KnownAgents() {
  const agents = useQuery({ queryKey: ["agents", KNOWN_AGENTS_SHOWN], queryFn: () => ok(api.organization.listAgents({ query: { limit: KNOWN_AGENTS_SHOWN } })) });
  const slugs = agents.data?.agents.map((agent) => agent.slug) ?? [];
  if (slugs.length === 0) return null;
  return (
    <span>
      {" "}
      Known agents: {slugs.join(", ")}
      {agents.data?.nextCursor ? " and more" : ""}.
    </span>
  );
}

/** Name, scopes, environment and optional agents: the secret comes back in the answer, once. */
export function CreateTokenForm({ onCreated }: { onCreated(token: CreatedToken): void }) {
  const { environment } = useSignedIn();
  const queryClient = useQueryClient();
  const nameId = useId();
  const environmentId = useId();
  const agentsId = useId();
  const agentsHintId = useId();
  const create = useMutation({
    mutationFn: (body: { name: string; scopes: TScope[]; environment: TEnvironment; agents?: string[] }) => ok(api.organization.createToken({ body })),
    onSuccess: (answer, body) => {
      onCreated({ name: body.name, secret: answer.token });
      void queryClient.invalidateQueries({ queryKey: ["tokens"] });
    },
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const agents = parseAgents(String(data.get("agents") ?? ""));
    create.mutate(
      {
        name: String(data.get("name") ?? ""),
        scopes: data.getAll("scopes").map(String) as TScope[],
        environment: String(data.get("environment")) as TEnvironment,
        ...(agents.length > 0 ? { agents } : {}),
      },
      { onSuccess: () => form.reset() },
    );
  };

  return (
    <form className="token-form" onSubmit={submit}>
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input id={nameId} name="name" required maxLength={100} autoComplete="off" />
      </div>
      <fieldset className="field">
        <legend>Scopes</legend>
        <div className="checks">
          {ZScope.options.map((scope) => (
            <label key={scope}>
              <input type="checkbox" name="scopes" value={scope} />
              <code>{scope}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor={environmentId}>Environment</label>
        <select id={environmentId} name="environment" defaultValue={environment}>
          <EnvironmentOptions />
        </select>
      </div>
      <div className="field">
        <label htmlFor={agentsId}>Agents (optional)</label>
        <input id={agentsId} name="agents" autoComplete="off" aria-describedby={agentsHintId} />
        <span id={agentsHintId} className="field-hint">
          Agent slugs separated by commas: the token then works only when one of them is named. Leave empty for a token that acts for the whole organization or any agent.
          <KnownAgents />
        </span>
      </div>
      {create.isError ? <ErrorMessage error={create.error} /> : null}
      <div className="button-row">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </div>
    </form>
  );
}
