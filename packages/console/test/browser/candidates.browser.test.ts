import { apiClient } from "@engram/test-support";
import type { TEventBody } from "@engram/contract";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";
import { LONG } from "./support/locators";

describe("candidates", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());

  /** Sends a developer event through /v1 with a token; answers the candidate it made. */
  async function sendEvent(token: string, body: TEventBody): Promise<string> {
    const answer = await apiClient(app.server.url, token).events.ingest({ body });
    if (answer.status !== 201) throw new Error(`events answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const [candidate] = answer.body.candidateIds;
    if (!candidate) throw new Error(`${body.type} made no candidate`);
    return candidate;
  }

  const card = (page: Page, text: string) => page.getByRole("listitem").filter({ hasText: text });
  const stateOf = async (id: string) => (await app.server.db.memory.findUnique({ where: { id } }))?.state;

  it("lists candidates with their event, promotes one, rejects several at once and reports each failure", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    // In candidate write mode a memory encoded directly also waits for review, without an event. (Set before
    // the token is first used: the server caches what a verified token's organization allows.)
    await app.server.services.organizations.update(orgId, { writeMode: "candidate" });
    const token = await app.server.newToken(orgId);
    const deployed = await sendEvent(token, { type: "deploy.completed", text: "payments-api 2.4.1 deployed to production.", source: "github-actions", subject: "payments-api" });
    const resolved = await sendEvent(token, { type: "incident.resolved", text: "INC-9 resolved: the cache was cold after the deploy.", source: "pagerduty", subject: "INC-9" });
    const decided = await sendEvent(token, { type: "decision.recorded", text: "We keep Postgres 15 until the next quarter.", source: "adr", subject: "database" });
    const encoded = await apiClient(app.server.url, token).memory.encode({ body: { text: "Release notes are written by the on-call engineer." } });
    expect(encoded.status).toBe(201);
    const direct = encoded.status === 201 ? encoded.body.memory.id : "";
    expect(await stateOf(direct)).toBe("candidate");

    await page.getByRole("link", { name: "Candidates", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Candidates" }).waitFor();
    await expect.poll(() => page.locator(".candidate").count(), LONG).toBe(4);
    const deployCard = card(page, "payments-api 2.4.1 deployed to production.");
    expect(await deployCard.getByRole("heading", { level: 3 }).textContent()).toContain("deploy.completed");
    expect(await deployCard.textContent()).toContain("github-actions");
    expect(await card(page, "Release notes are written").textContent()).toContain("Encoded directly");
    await app.checkA11y(page);
    await app.screenshot(page, "candidates");

    // One at a time: nothing changes until confirmed.
    await deployCard.getByRole("button", { name: "Promote" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason (optional)").fill("Worth remembering");
    await dialog.getByRole("button", { name: "Promote" }).click();
    await expect.poll(() => page.locator(".candidate").count(), LONG).toBe(3);
    expect(await stateOf(deployed)).toBe("durable");

    // Several at once: one of them is reviewed elsewhere in the meantime, and is reported on its own.
    await card(page, "INC-9 resolved").getByLabel("Select").check();
    await card(page, "Postgres 15").getByLabel("Select").check();
    await card(page, "Release notes are written").getByLabel("Select").check();
    const colleague = await app.server.signedIn(orgId, "admin");
    expect((await colleague.post(`/api/memory/candidates/${direct}/promote`, {})).status).toBe(200);

    await page.getByRole("button", { name: "Reject selected" }).click();
    expect(await dialog.textContent()).toContain("cannot be undone");
    await dialog.getByRole("button", { name: "Reject selected" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Rejected" }).textContent(), LONG).toContain("Rejected 2 candidates; 1 candidate could not be rejected.");
    expect(await page.locator(".review-failures").textContent()).toContain("Release notes are written");
    expect(await page.locator(".review-failures").getByRole("alert").textContent()).toContain("invalid_state_transition");
    expect(await stateOf(resolved)).toBe("tombstoned");
    expect(await stateOf(decided)).toBe("tombstoned");
    expect(await stateOf(direct)).toBe("durable");
    await expect.poll(() => page.locator(".candidate").count(), LONG).toBe(0);
    await page.getByText("No candidates await review").waitFor();
    const history = await app.server.db.memoryHistory.findMany({ where: { memoryId: resolved }, orderBy: { createdAt: "asc" } });
    expect(history.at(-1)).toMatchObject({ action: "rejected", toState: "tombstoned" });
  });

  it("shows a member the candidates without selection or review buttons, and says why", async () => {
    const { page, orgId } = await app.signIn({ role: "member", plan: "spark" });
    await sendEvent(await app.server.newToken(orgId), { type: "review.finding", text: "Retries in the billing client lack jitter.", source: "code-review", subject: "billing-client" });
    await page.goto("/candidates");
    await card(page, "Retries in the billing client lack jitter.").waitFor(LONG);
    expect(await page.getByText("Only owners and admins promote or reject candidates").count()).toBe(1);
    expect(await page.getByRole("checkbox").count()).toBe(0);
    expect(await page.getByRole("button", { name: /Promote|Reject/ }).count()).toBe(0);
    await app.checkA11y(page);
  });
});
