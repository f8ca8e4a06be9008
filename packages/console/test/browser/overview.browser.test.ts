import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";

/** The overview against a real server: counts by state and kind and the activity chart, or the empty state. */

let app: ConsoleBrowser;
beforeAll(async () => {
  app = await openConsole();
});
afterAll(() => app?.close());

async function send(token: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${app.server.url}/v1/memory${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBe(201);
}

/** The number shown under `label` in the panel titled `panel`. */
async function countIn(page: Page, panel: string, label: string): Promise<number> {
  const region = page.getByRole("region", { name: panel });
  const stat = region.locator(".stats > div").filter({ has: page.getByText(label, { exact: true }) });
  return Number((await stat.locator("dd").textContent())?.replace(/\D/g, ""));
}

describe("overview", () => {
  it("counts memories by state and kind and charts the activity of the last 30 days", async () => {
    const { page, orgId } = await app.signIn({ role: "member" });
    const token = await app.server.newToken(orgId);
    await send(token, "", { text: "The billing service retries failed card charges three times over two days." });
    await send(token, "", { text: "Releases are frozen during the last week of each quarter.", memoryKind: "decision" });
    await send(token, "", { text: "Rotate the payments TLS certificate with the runbook in the ops repository.", memoryKind: "procedure" });
    // A completed deploy is triaged into a candidate memory of kind "event".
    await send(token, "/events", { type: "deploy.completed", text: "payments-api 2.14.0 deployed to production.", subject: "payments-api" });

    await page.reload();
    await page.getByRole("region", { name: "Memories by state" }).waitFor();
    await expect.poll(() => countIn(page, "Memories by state", "Durable")).toBe(3);
    expect(await countIn(page, "Memories by state", "Candidate")).toBe(1);
    expect(await countIn(page, "Memories by state", "Suppressed")).toBe(0);
    expect(await countIn(page, "Memories by kind", "Fact")).toBe(1);
    expect(await countIn(page, "Memories by kind", "Decision")).toBe(1);
    expect(await countIn(page, "Memories by kind", "Procedure")).toBe(1);
    expect(await countIn(page, "Memories by kind", "Event")).toBe(1);

    // The chart's total is the sum of its series over the days the server reported.
    const metrics = await (await page.request.get("/api/memory/reflection/metrics?environment=production")).json();
    const expected = metrics.trend.days.reduce(
      (sum: number, day: Record<string, number>) => sum + day.encodes! + day.retrievals! + day.events! + day.reflectionActions!,
      0,
    );
    expect(expected).toBeGreaterThanOrEqual(5);
    const chart = page.locator('figure[data-chart="Activity per day"]');
    expect(Number(await chart.getAttribute("data-total"))).toBe(expected);

    await app.checkA11y(page);
    await app.screenshot(page, "overview");
  });

  it("shows an organization without memory how to begin", async () => {
    const { page } = await app.signIn({ role: "owner" });
    await page.getByText("No memories in Production yet").waitFor();
    expect(await page.locator(".state-empty").getByRole("link", { name: "Tokens" }).getAttribute("href")).toBe("/tokens");
    expect(await page.locator("figure[data-chart]").count()).toBe(0);
    await app.checkA11y(page);
  });
});
