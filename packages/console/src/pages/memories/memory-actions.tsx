import type { TMemoryState } from "@engram/contract";
import { useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, ok } from "../../api/client";
import { ConfirmAction } from "../../ui/confirm-action";
import { Panel } from "../../ui/page";

type Change = (id: string, reason: string | undefined) => Promise<unknown>;

interface Action {
  label: string;
  title: string;
  description: string;
  destructive?: boolean;
  /** Whether the action makes sense from this state. */
  allowed(state: TMemoryState): boolean;
  run: Change;
}

const actions: Action[] = [
  {
    label: "Reinforce",
    title: "Reinforce this memory?",
    description: "Counts a use of the memory: reinforced memories rank higher and decay more slowly.",
    allowed: (state) => state !== "tombstoned",
    run: (id, reason) => ok(api.memory.reinforce({ params: { id }, body: { reason } })),
  },
  {
    label: "Suppress",
    title: "Suppress this memory?",
    description: "Retrieval stops returning it until someone restores it. Nothing is deleted.",
    allowed: (state) => state === "durable",
    run: (id, reason) => ok(api.memory.suppress({ params: { id }, body: { reason } })),
  },
  {
    label: "Restore",
    title: "Restore this memory?",
    description: "Makes the suppressed memory durable again: retrieval returns it once more.",
    allowed: (state) => state === "suppressed",
    run: (id, reason) => ok(api.memory.restore({ params: { id }, body: { reason } })),
  },
  {
    label: "Tombstone",
    title: "Tombstone this memory?",
    description: "Removes the memory from retrieval for good. This cannot be undone: it is kept only so its history can be read.",
    destructive: true,
    allowed: (state) => state !== "tombstoned",
    run: (id, reason) => ok(api.memory.tombstone({ params: { id }, body: { reason } })),
  },
];

/** The state changes an owner or admin may make from the memory's current state; members are told why they see none. */
export function MemoryActions({ id, state, canManage }: { id: string; state: TMemoryState; canManage: boolean }) {
  const queryClient = useQueryClient();
  if (!canManage) {
    return (
      <Panel title="Actions">
        <p className="muted">Only owners and admins change a memory's state. Your role in this organization is member, so you can read it only.</p>
      </Panel>
    );
  }
  const available = actions.filter((action) => action.allowed(state));
  const confirm = (action: Action) => async (reason: string | undefined) => {
    await action.run(id, reason);
    void queryClient.invalidateQueries({ queryKey: ["memories"] });
    void queryClient.invalidateQueries({ queryKey: ["candidates"] });
    void queryClient.invalidateQueries({ queryKey: ["metrics"] });
    // Awaited so the dialog closes on a page that already shows the new state and history row.
    await queryClient.invalidateQueries({ queryKey: ["memory", id] });
  };
  return (
    <Panel title="Actions">
      {available.length === 0 ? (
        <p className="muted">This memory is tombstoned: nothing more can be done with it.</p>
      ) : (
        <div className="button-row">
          {available.map((action) => (
            <ConfirmAction
              key={action.label}
              label={action.label}
              title={action.title}
              description={action.description}
              destructive={action.destructive}
              reason="required"
              onConfirm={confirm(action)}
            />
          ))}
        </div>
      )}
      {state === "candidate" ? (
        <p className="hint">
          This memory is a candidate: promote or reject it on the <Link to="/candidates">Candidates</Link> page.
        </p>
      ) : null}
    </Panel>
  );
}
