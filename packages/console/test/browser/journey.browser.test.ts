import { rawRequest } from "@engram/test-support";
import { greetFirstRun } from "@engram/server/cli/serve";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";
import { LONG, panel, section } from "./support/locators";

/**
 * A new user's first session, end to end through the real pages: sign in with the credentials the first start
 * prints, make a token and write memories with it, find one and tombstone it (then /v1 no longer returns it),
 * edit an assistant's capabilities through the server's validation, run reflection, and sign out.
 */

async function open(page: Page, name: string, heading = name) {
  await section(page, name).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor(LONG);
}

describe("a new user's first session", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());
  afterEach(() => expect(app.pageErrors).toEqual([]));

  it("goes from the printed credentials to a tombstoned memory, a capability set, a reflection run and sign-out", async () => {
    // The first start prints the owner's email and password; those are what the person types.
    let printed = "";
    await greetFirstRun(app.server.services, app.server.url, (line) => (printed += `${line}\n`), undefined, true);
    const email = /ENGRAM_ADMIN_EMAIL=(\S+)/.exec(printed)?.[1];
    const password = /ENGRAM_ADMIN_PASSWORD=(\S+)/.exec(printed)?.[1];
    expect(printed).toContain(`sign in to the console at ${app.server.url}/`);
    const [org] = await app.server.services.organizations.list();
    const { page, context } = await app.signInAs({ userId: "", email: email!, password: password! }, org!.id);

    // A token, made on the Tokens page; its secret is read once, from the page.
    await open(page, "Tokens");
    const form = panel(page, "New token");
    await form.getByLabel("Name").fill("journey");
    for (const scope of ["memory:read", "memory:write", "memory:control", "memory:delete"]) await form.getByRole("checkbox", { name: scope }).check();
    await form.getByRole("button", { name: "Create token" }).click();
    const token = await form.getByLabel("Token secret").inputValue();
    expect(token).toMatch(/^acm_/);
    await app.screenshot(page, "journey-token");

    // Memories written with it through /v1.
    const texts = [
      "The payments service deploys with make release after CI is green.",
      "Payments deploys are frozen on Fridays.",
      "The staging database is reset every Sunday night.",
    ];
    for (const text of texts) {
      const written = await rawRequest(app.server.url, "/v1/memory", { token, body: JSON.stringify({ text }) });
      expect(written.status, JSON.stringify(written.body)).toBe(201);
    }
    const retrieve = async () =>
      (await rawRequest(app.server.url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "when are payments deploys frozen", limit: 10 }) })).body.memories.map(
        (memory: { text: string }) => memory.text,
      );
    expect(await retrieve()).toContain(texts[1]);

    // Found in the explorer with its score, tombstoned from its page with a reason.
    await open(page, "Memories");
    await page.getByLabel("Search", { exact: true }).fill("when are payments deploys frozen");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("columnheader", { name: "Score" }).waitFor(LONG);
    await page.getByRole("link", { name: texts[1] }).click();
    await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor(LONG);
    await panel(page, "Actions").getByRole("button", { name: "Tombstone" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason").fill("The freeze was lifted");
    await dialog.getByRole("button", { name: "Tombstone" }).click();
    await page.locator(".timeline").getByText("Reason: The freeze was lifted").waitFor(LONG);
    await app.screenshot(page, "journey-tombstoned");
    expect(await retrieve()).not.toContain(texts[1]);

    // An assistant whose capabilities pass the server's rules only once they are right.
    await open(page, "Assistants");
    const create = panel(page, "New assistant");
    await create.getByLabel("Name").fill("Helpdesk");
    await create.getByRole("button", { name: "Create assistant" }).click();
    await page.getByRole("rowheader", { name: "Helpdesk", exact: true }).getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Helpdesk" }).waitFor(LONG);
    const capability = (name: string) => page.getByRole("group", { name, exact: true });
    await capability("Search memory").getByRole("checkbox").check();
    await capability("Search memory").getByLabel("Max memories").fill("50");
    await page.getByRole("button", { name: "Save capabilities" }).click();
    await capability("Search memory").getByText("capabilityConfigs.search_memory.maxMemories must be between 1 and 20; got 50.").waitFor(LONG);
    await capability("Search memory").getByLabel("Max memories").fill("5");
    await page.getByRole("button", { name: "Save capabilities" }).click();
    await panel(page, "Change history").getByText("Turned on: Search memory.").waitFor(LONG);
    await app.screenshot(page, "journey-capabilities");

    // Reflection: a run, its audit, charts with data.
    await open(page, "Reflection");
    await page.getByRole("button", { name: "Run now" }).click();
    await page.getByRole("table", { name: "Reflection runs, newest first" }).getByRole("row").filter({ hasText: "Completed" }).waitFor(LONG);
    await expect.poll(async () => Number(await page.locator('figure[data-chart^="Per day"]').getAttribute("data-total")), LONG).toBeGreaterThan(0);
    await app.checkA11y(page);
    await app.screenshot(page, "journey-reflection");

    // Signed out: the page goes back to sign-in, and the old cookie opens nothing.
    const [cookie] = (await context.cookies()).filter((c) => c.name === "engram_session");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to Engram" }).waitFor(LONG);
    const refused = await fetch(`${app.server.url}/api/organization`, { headers: { cookie: `engram_session=${cookie!.value}` } });
    expect(refused.status).toBe(401);
  });
});
