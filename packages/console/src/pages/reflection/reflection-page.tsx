import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { api, ok } from "../../api/client";
import { useSignedIn } from "../../session/session";
import { humanize } from "../../ui/format";
import { Page, Panel } from "../../ui/page";
import { QueryView } from "../../ui/query-view";
import { AuditsList } from "./audits-list";
import { ReflectionCharts } from "./reflection-charts";
import { ReflectionEvents } from "./reflection-events";
import { RunNowButton, RunNowResult, useRunNow } from "./run-now";
import { SettingsForm, settingsKey } from "./settings-form";

function Settings({ canManage }: { canManage: boolean }) {
  // Not refetched on focus: the form keeps what the person typed; Save sends only what they changed anyway.
  const settings = useQuery({ queryKey: settingsKey, queryFn: () => ok(api.reflection.getSettings()), refetchOnWindowFocus: false });
  return (
    <QueryView query={settings} loading="Loading reflection settings…">
      {(answer) => <SettingsForm answer={answer} canManage={canManage} />}
    </QueryView>
  );
}

/** Reflection in the current environment: its runs, what it changed, the memory it looks after, and its settings. */
export function ReflectionPage() {
  const { environment, canManage } = useSignedIn();
  const run = useRunNow(environment);
  const { reset } = run;
  // What Run now answered belongs to the environment it was pressed in.
  useEffect(() => reset(), [environment, reset]);
  return (
    <Page title="Reflection" actions={<RunNowButton run={run} canManage={canManage} />}>
      <p className="muted">
        Reflection merges near-duplicates, demotes overturned memories, flags stale ones and reviews candidates in the{" "}
        <strong>{humanize(environment)}</strong> environment. It never deletes anything, and every change it makes is listed below with its reason.
      </p>
      <Panel title="Runs">
        <RunNowResult run={run} />
        <AuditsList environment={environment} />
      </Panel>
      <ReflectionCharts environment={environment} />
      <Panel title="Events">
        <ReflectionEvents environment={environment} />
      </Panel>
      <Panel title="Settings">
        <Settings canManage={canManage} />
      </Panel>
    </Page>
  );
}
