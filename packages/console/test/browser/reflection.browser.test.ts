import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";

/**
 * The reflection page against a real server: Run now and the audit it leaves, what the run did, the charts,
 * the settings form (only what changed is sent; the server's refusals beside the field), and members reading.
 */

let app: ConsoleBrowser;
beforeAll(async () => {
  app = await openConsole();
});
afterAll(async () => {
  await app?.server.services.reflectionRunner.idle();
  await app?.close();
});

async function encode(token: string, body: { text: string; subject?: string; memoryKind?: string }): Promise<string> {
  const res = await fetch(`${app.server.url}/v1/memory`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  expect(res.status, JSON.stringify(answer)).toBe(201);
  return answer.memory.id;
}

const runsTable = (page: Page) => page.getByRole("table", { name: "Reflection runs, newest first" });
const eventsTable = (page: Page) => page.getByRole("table", { name: "Reflection events, newest first" });
const chartTotal = async (page: Page, title: string) => Number(await page.locator(`figure[data-chart="${title}"]`).getAttribute("data-total"));

describe("running reflection", () => {
  it("starts a run, lists its completed audit and what it did, and charts the environment", async () => {
    const { page, orgId, person } = await app.signIn({ role: "owner" });
    const token = await app.server.newToken(orgId);
    // Near-duplicates: the copy adds one word to fifteen, well over the default similarity of 0.85.
    const base = "Payments deploys happen every Tuesday afternoon after the release review, from the Lisbon office, with canary traffic, rollback drills and a signed changelog";
    const original = await encode(token, { text: `${base}.`, subject: "payments-api" });
    const copy = await encode(token, { text: `${base}, confirmed.`, subject: "payments-api" });
    await encode(token, { text: "Incidents page the on-call engineer through PagerDuty within five minutes.", memoryKind: "procedure" });
    await encode(token, { text: "We chose Postgres 15 for production storage after the load tests.", memoryKind: "decision" });

    await page.getByRole("link", { name: "Reflection" }).click();
    await page.getByRole("heading", { level: 1, name: "Reflection" }).waitFor();
    await page.getByText("No runs in Production yet").waitFor();

    await page.getByRole("button", { name: "Run now" }).click();
    await page.getByText("Reflection started in Production").waitFor();
    const completed = runsTable(page).getByRole("row").filter({ hasText: "Completed" });
    await completed.waitFor({ timeout: 30_000 });
    await expect.poll(() => completed.textContent()).toContain(person.email);
    expect(await completed.textContent()).toContain("A person");
    expect(await completed.textContent()).toMatch(/Duplicates: 4 examined, \d+ actions/);

    const run = await app.server.db.reflectionRun.findFirstOrThrow({ where: { orgId } });
    expect(run).toMatchObject({ status: "completed", trigger: "person", triggeredBy: `user:${person.email}` });
    const states = await app.server.db.memory.findMany({ where: { id: { in: [original, copy] } }, select: { state: true } });
    expect(states.map((memory) => memory.state).sort()).toEqual(["durable", "suppressed"]);

    // The merge is in the events, linked to the memory it suppressed; filtering leaves only that action.
    const suppressed = (await app.server.db.memory.findFirstOrThrow({ where: { id: { in: [original, copy] }, state: "suppressed" } })).id;
    const link = eventsTable(page).getByRole("link", { name: suppressed }).first();
    await link.waitFor();
    expect(await link.getAttribute("href")).toBe(`/memories/${suppressed}`);
    await page.getByLabel("Action").selectOption("suppressed_duplicate");
    const rows = eventsTable(page).locator("tbody tr");
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("Suppressed duplicate")]);

    for (const title of ["Activation", "Confidence", "Age (days)"]) await expect.poll(() => chartTotal(page, title), { message: title }).toBe(3);
    const trend = page.locator('figure[data-chart^="Per day"]');
    await expect.poll(async () => Number(await trend.getAttribute("data-total"))).toBeGreaterThanOrEqual(4 + 1);

    await app.checkA11y(page);
    await app.screenshot(page, "reflection");

    // Each environment is its own scope: Test has had no run and holds no memory.
    await page.getByLabel("Environment").selectOption("test");
    await page.getByText("No runs in Test yet").waitFor();
    await page.getByText("No memories in Test yet").waitFor();
    expect(await page.locator("figure[data-chart]").count()).toBe(0);
    expect(await page.getByText("Reflection started in").count()).toBe(0);
  });

  it("shows the server's refusal while a run is in progress, and follows that run until it ends", async () => {
    const { page, orgId } = await app.signIn({ role: "admin" });
    const now = new Date();
    // A run another server process is working on: its lease holds for the whole test.
    await app.server.db.reflectionRun.create({
      data: {
        id: `rfr_${randomUUID().replaceAll("-", "")}`,
        orgId,
        environment: "production",
        trigger: "schedule",
        status: "running",
        startedAt: now,
        counts: JSON.stringify({ duplicates: { examined: 12, actions: 1 } }),
        errors: "[]",
        progress: JSON.stringify({ done: ["duplicates"] }),
        leaseOwner: "runner_elsewhere",
        leaseExpiresAt: new Date(now.getTime() + 60 * 60_000),
      },
    });
    await page.goto("/reflection");
    await runsTable(page).getByRole("row").filter({ hasText: "Running" }).waitFor();

    await page.getByRole("button", { name: "Run now" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "already in progress" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("run_in_progress");
    expect(await app.server.db.reflectionRun.count({ where: { orgId } })).toBe(1);

    // The list is read again while its newest run is running: its end shows without a reload.
    await app.server.db.reflectionRun.updateMany({
      where: { orgId },
      data: { status: "completed", finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null, counts: JSON.stringify({ duplicates: { examined: 12, actions: 1 }, staleness: { examined: 30, actions: 2 } }) },
    });
    const row = runsTable(page).getByRole("row").filter({ hasText: "Completed" });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain("Staleness: 30 examined, 2 actions");
  });
});

describe("settings", () => {
  it("saves only what changed, names the server's refusal beside its field, and keeps the change on reload", async () => {
    const { page, orgId } = await app.signIn({ role: "owner" });
    await page.goto("/reflection");
    const interval = page.getByLabel("Run every (minutes)");
    await expect.poll(() => interval.inputValue()).toBe("60");

    await interval.fill("1");
    await page.getByRole("button", { name: "Save settings" }).click();
    const problem = page.locator(".field", { has: interval }).locator(".field-error");
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/greater than or equal to 5/);
    expect(await interval.getAttribute("aria-invalid")).toBe("true");
    expect(await app.server.db.reflectionSettings.count({ where: { orgId } })).toBe(0);

    await interval.fill("120");
    await page.getByLabel("Promote automatically").check();
    const [request] = await Promise.all([
      page.waitForRequest((sent) => sent.method() === "PATCH" && sent.url().endsWith("/api/memory/reflection/settings")),
      page.getByRole("button", { name: "Save settings" }).click(),
    ]);
    expect(request.postDataJSON()).toEqual({ intervalMinutes: 120, processes: { candidates: { autoPromote: true } } });
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor();
    expect(await problem.count()).toBe(0);
    const stored = JSON.parse((await app.server.db.reflectionSettings.findUniqueOrThrow({ where: { orgId } })).settings);
    expect(stored).toMatchObject({ intervalMinutes: 120, processes: { candidates: { autoPromote: true, promoteMinConfidence: 0.9 } } });

    await page.reload();
    await expect.poll(() => page.getByLabel("Run every (minutes)").inputValue()).toBe("120");
    expect(await page.getByLabel("Promote automatically").isChecked()).toBe(true);
    await page.getByText(/Last changed .* by user:/).waitFor();
  });

  it("shows a member the settings read-only, saying why, and no Run now", async () => {
    const { page } = await app.signIn({ role: "member" });
    await page.goto("/reflection");
    await page.getByText("Only owners and admins can change reflection settings").waitFor();
    const form = page.getByRole("form", { name: "Reflection settings" });
    const controls = form.locator("input");
    expect(await controls.count()).toBeGreaterThan(10);
    for (const control of await controls.all()) expect(await control.isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Save settings" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Run now" }).count()).toBe(0);
    await page.getByText("Only owners and admins can start a run.").waitFor();
    await app.checkA11y(page);
  });
});
