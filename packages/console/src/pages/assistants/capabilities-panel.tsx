import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, ok } from "../../api/client";
import { Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import type { AssistantDetail } from "./assistant-queries";
import { CapabilitiesEditor } from "./capabilities-editor";

/** The capability registry never changes while the server runs. */
export const useRegistry = () =>
  useQuery({ queryKey: ["capability-registry"], queryFn: () => ok(api.capabilities.registry({ query: {} })), staleTime: Number.POSITIVE_INFINITY });

/** The registry by category, with what this assistant may have at the organization's tier. */
export function CapabilitiesPanel({ assistant, readOnlyReason }: { assistant: AssistantDetail; readOnlyReason: string | null }) {
  const [saved, setSaved] = useState<string | null>(null);
  const registry = useRegistry();
  const available = useQuery({
    queryKey: ["assistant", assistant._id, "available"],
    queryFn: () => ok(api.capabilities.availableCapabilities({ params: { assistantId: assistant._id } })),
  });

  return (
    <Panel title="Capabilities">
      {saved ? (
        <p className="notice" role="status">
          {saved}
        </p>
      ) : null}
      <QueryView query={registry} loading="Loading the capability registry…">
        {({ capabilities }) => (
          <QueryView query={available} loading="Loading what this assistant may do…">
            {(offer) => (
              // A new version (saved here or elsewhere) starts the form again from what is stored.
              <CapabilitiesEditor
                key={assistant.version}
                assistant={assistant}
                registry={capabilities}
                available={{ ids: new Set(offer.capabilities.map((entry) => entry.id)), tier: offer.organizationTier, limit: offer.capabilityLimit }}
                readOnlyReason={readOnlyReason}
                onSaved={setSaved}
              />
            )}
          </QueryView>
        )}
      </QueryView>
    </Panel>
  );
}
