import type { TEventBody } from "@engram/contract";
import { apiClient } from "@engram/test-support";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";
import { LONG } from "./support/locators";

describe("events and workflows", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());

  async function send(token: string, body: TEventBody) {
    const answer = await apiClient(app.server.url, token).events.ingest({ body });
    if (answer.status !== 201) throw new Error(`events answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }

  const workflow = (page: Page, name: string) => page.locator("section.workflow", { has: page.getByRole("heading", { level: 3, name, exact: true }) });
  const eventRows = (page: Page) => page.locator(".event-table tbody tr");

  it("lists sent events newest first with their metadata, filters by type, and shows where each workflow stands", async () => {
    const { page, orgId } = await app.signIn({ role: "member", plan: "spark" });
    const token = await app.server.newToken(orgId);
    await send(token, { type: "incident.opened", text: "INC-7 opened: checkout 5xx spike.", source: "pagerduty", subject: "INC-7", metadata: { severity: "sev2" } });
    await send(token, { type: "deploy.completed", text: "checkout 3.1.0 deployed to production.", source: "github-actions", subject: "checkout", metadata: { environment: "production", version: "3.1.0" } });
    await send(token, { type: "incident.resolved", text: "INC-7 resolved: rolled back the cache change.", source: "pagerduty", subject: "INC-7", metadata: { severity: "sev2" } });
    await send(token, { type: "custom.note", text: "A note Engram has no rule for." });
    // In another environment: not shown in Production.
    await send(await app.server.newToken(orgId, { environment: "staging" }), { type: "incident.opened", text: "INC-8 opened in staging.", subject: "INC-8" });

    await page.getByRole("link", { name: "Events", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Events and workflows" }).waitFor();

    const incidents = workflow(page, "Incident");
    await incidents.waitFor(LONG);
    expect(await incidents.getByRole("row", { name: /INC-7/ }).textContent()).toContain("Resolved");
    expect(await incidents.getByRole("row").count()).toBe(2);
    const deployments = workflow(page, "Deployment");
    const checkout = await deployments.getByRole("row", { name: /checkout/ }).textContent();
    expect(checkout).toContain("production");
    expect(checkout).toContain("Deployed");
    expect(checkout).toContain("version: 3.1.0");

    await expect.poll(() => eventRows(page).count(), LONG).toBe(4);
    const first = eventRows(page).first();
    expect(await first.textContent()).toContain("custom.note");
    expect(await first.textContent()).toContain("Unknown type");
    const resolved = eventRows(page).nth(1);
    expect(await resolved.textContent()).toContain("INC-7 resolved");
    expect(await resolved.textContent()).toContain("pagerduty");
    expect(await resolved.getByRole("cell").nth(5).textContent()).toBe("incident.resolved");
    expect(await resolved.getByText('"severity": "sev2"').isVisible()).toBe(false);
    await resolved.getByText("Metadata").click();
    await resolved.getByText('"severity": "sev2"').waitFor({ state: "visible" });
    expect(await page.getByText("INC-8").count()).toBe(0);
    await app.checkA11y(page);
    await app.screenshot(page, "events");

    await page.getByLabel("Event type").fill("incident.opened");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => eventRows(page).count(), LONG).toBe(1);
    expect(await eventRows(page).first().textContent()).toContain("INC-7 opened");
    expect(new URL(page.url()).searchParams.get("type")).toBe("incident.opened");
    await page.goBack();
    await expect.poll(() => eventRows(page).count(), LONG).toBe(4);

    // The environment switcher moves both lists to Staging.
    await page.getByLabel("Environment").selectOption("staging");
    await expect.poll(() => eventRows(page).allTextContents(), LONG).toEqual([expect.stringContaining("INC-8 opened in staging.")]);
    expect(await workflow(page, "Incident").getByRole("row", { name: /INC-8/ }).textContent()).toContain("Open");
  });

  it("loads older events a page at a time", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    const token = await app.server.newToken(orgId);
    for (let i = 1; i <= 52; i++) await send(token, { type: "ci.run.succeeded", text: `Build ${i} passed.`, subject: `build-${i}` });
    await page.goto("/events");
    await expect.poll(() => eventRows(page).count(), LONG).toBe(50);
    expect(await eventRows(page).first().textContent()).toContain("Build 52 passed.");
    await page.getByRole("button", { name: "Load more" }).click();
    await expect.poll(() => eventRows(page).count(), LONG).toBe(52);
    expect(await eventRows(page).last().textContent()).toContain("Build 1 passed.");
    expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0);
  });
});
