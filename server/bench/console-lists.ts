/**
 * The console's lists at their largest, for the slow-input section: each answer's rows as long as the fields
 * allow, in control characters that JSON writes six times longer, and the agents of an organization that has
 * registered tens of thousands. Answers the signed-in person's cookie and the lists to read.
 */
import { agentListLimits, candidateListLimit, eventLimits, eventViewLimits, memoryScopes } from "@engram/contract";
import Database from "better-sqlite3";
import type { RunningServer } from "../src/server";

const AGENTS = 20_000;
const CONTROL = "\u0001";
/** Metadata of `eventLimits.metadataMaxBytes` as JSON: one key whose value is control characters. */
const widestMetadata = (key: string) => ({ [key]: CONTROL.repeat(Math.floor((eventLimits.metadataMaxBytes - key.length - 8) / 6)) });
const widestText = (i: number) => `Event ${i} ${CONTROL.repeat(eventLimits.textMaxLength - 16)}`;

export interface ConsoleList {
  name: string;
  path: string;
}

export async function fillConsoleLists(server: RunningServer, databaseFile: string): Promise<{ cookie: string; lists: ConsoleList[] }> {
  const { organizations, tokens, users, memberships } = server.services;
  const org = await organizations.create({ name: "slow-console-lists", plan: "spark" });
  const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: [...memoryScopes], environment: "production" });
  const send = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  };

  // Workflow states first, so the newest events, on the events page, are the widest ones below.
  for (let i = 0; i < eventViewLimits.workflowsMax; i++) await send("/v1/memory/events", { type: "incident.opened", text: `INC-${i} opened.`, subject: `INC-${i}`, metadata: widestMetadata("version") });
  await organizations.setWriteMode(org.id, "candidate");
  for (let i = 0; i < candidateListLimit; i++) await send("/v1/memory/events", { type: "decision.recorded", text: widestText(i), subject: `decision-${i}`, metadata: widestMetadata("note") });
  for (let i = 0; i < eventViewLimits.eventsMax; i++) await send("/v1/memory/events", { type: "custom.note", text: widestText(i), metadata: widestMetadata("note") });

  // The agents, as their first writes would register them: one statement instead of 20,000 writes.
  const sqlite = new Database(databaseFile);
  try {
    sqlite.pragma("busy_timeout = 10000");
    const insert = sqlite.prepare(`INSERT INTO "Agent" ("id", "orgId", "slug", "createdAt") VALUES (?, ?, ?, ?)`);
    sqlite.transaction(() => {
      for (let i = 0; i < AGENTS; i++) insert.run(`agt_bench${i}`, org.id, `agent-${String(i).padStart(5, "0")}`, Date.now());
    })();
  } finally {
    sqlite.close();
  }

  const email = "slow-console@example.com";
  const password = "bench-password-long-enough";
  const { user } = await users.create({ email, password });
  await memberships.add(org.id, user.id, "owner", "cli");
  const login = await fetch(`${server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json", origin: server.url }, body: JSON.stringify({ email, password }) });
  if (login.status !== 200) throw new Error(`sign-in answered ${login.status}: ${await login.text()}`);
  const cookie = login.headers.getSetCookie().map((setCookie) => setCookie.split(";")[0]).join("; ");

  return {
    cookie,
    lists: [
      { name: `console: a page of ${eventViewLimits.eventsMax} of the widest developer events`, path: `/api/memory/events?limit=${eventViewLimits.eventsMax}` },
      { name: `console: ${eventViewLimits.workflowsMax} workflow states of the widest details`, path: `/api/memory/workflows?limit=${eventViewLimits.workflowsMax}` },
      { name: `console: ${candidateListLimit} candidates from the widest events`, path: "/api/memory/candidates" },
      { name: `console: a page of ${agentListLimits.maxLimit} agents of ${AGENTS.toLocaleString("en-US")}`, path: "/api/organization/agents" },
    ],
  };
}
