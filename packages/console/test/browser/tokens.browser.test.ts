import { rawRequest } from "@engram/test-support";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";
import { LONG, panel } from "./support/locators";

describe("tokens page", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());
  // An uncaught error in a page fails the test that caused it.
  afterEach(() => expect(app.pageErrors).toEqual([]));
  const tokenRow = (page: Page, name: string) => page.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
  const encode = (token: string, text: string) => rawRequest(app.server.url, "/v1/memory", { token, body: JSON.stringify({ text }) });

  async function openTokens(page: Page) {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Tokens", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Tokens" }).waitFor();
  }

  it("creates a token with scopes and an environment, shows its secret once, which works on /v1 until it is revoked", async () => {
    const { page, context } = await app.signIn({ role: "owner" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.server.url });
    await openTokens(page);
    await page.getByText("No tokens yet.").waitFor(LONG);

    const form = panel(page, "New token");
    await form.getByLabel("Name").fill("ci-writer");
    await form.getByRole("checkbox", { name: "memory:read" }).check();
    await form.getByRole("checkbox", { name: "memory:write" }).check();
    await form.getByLabel("Environment").selectOption("staging");
    await form.getByRole("button", { name: "Create token" }).click();

    const secretField = form.getByLabel("Token secret");
    await secretField.waitFor(LONG);
    const secret = await secretField.inputValue();
    expect(secret.length).toBeGreaterThan(20);
    expect(await secretField.getAttribute("readonly")).not.toBeNull();
    await form.getByText("you will not see it again").waitFor();
    // The form is ready for the next token.
    expect(await form.getByLabel("Name").inputValue()).toBe("");

    await form.getByRole("button", { name: "Copy" }).click();
    await form.getByText("Copied", { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const row = tokenRow(page, "ci-writer");
    await row.waitFor(LONG);
    const cells = await row.getByRole("cell").allTextContents();
    expect(secret.startsWith(cells[0]!.replace("…", ""))).toBe(true);
    expect(cells[1]).toContain("memory:read");
    expect(cells[1]).toContain("memory:write");
    expect(cells[1]).not.toContain("memory:delete");
    expect(cells[2]).toBe("Staging");
    expect(cells[3]).toBe("Any");
    expect(cells[5]).toBe("Active");
    await app.checkA11y(page);
    await app.screenshot(page, "tokens");

    // The secret works on /v1, in the token's environment.
    const encoded = await encode(secret, "Staging deploys need a green canary.");
    expect(encoded.status).toBe(201);
    expect(encoded.body.memory.environment).toBe("staging");

    // Once dismissed, or after a reload, it is nowhere on the page.
    await form.getByRole("button", { name: "I have saved it" }).click();
    await secretField.waitFor({ state: "detached" });
    await page.reload();
    await tokenRow(page, "ci-writer").waitFor(LONG);
    expect(await page.content()).not.toContain(secret);

    // Revoking asks first; cancelling changes nothing.
    await tokenRow(page, "ci-writer").getByRole("button", { name: "Revoke" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke ci-writer?" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await encode(secret, "Still allowed.")).status).toBe(201);

    await tokenRow(page, "ci-writer").getByRole("button", { name: "Revoke" }).click();
    await dialog.getByRole("button", { name: "Revoke token" }).click();
    await tokenRow(page, "ci-writer").getByText("Revoked").waitFor(LONG);
    expect(await tokenRow(page, "ci-writer").getByRole("button", { name: "Revoke" }).count()).toBe(0);
    expect((await encode(secret, "Refused now.")).status).toBe(401);
  });

  it("lists the first 100 tokens, and the rest when asked", async () => {
    const { page, orgId } = await app.signIn({ role: "member" });
    for (let i = 0; i < 101; i++) await app.server.newToken(orgId);
    const last = (await app.server.db.accessToken.findMany({ where: { orgId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 1 }))[0]!;
    await openTokens(page);
    const rows = page.getByRole("table", { name: "Access tokens" }).getByRole("row");
    await expect.poll(() => rows.count(), LONG).toBe(101);
    expect(await tokenRow(page, last.name).count()).toBe(0);
    await page.getByRole("button", { name: "More tokens" }).click();
    await tokenRow(page, last.name).waitFor(LONG);
    expect(await rows.count()).toBe(102);
    expect(await page.getByRole("button", { name: "More tokens" }).count()).toBe(0);
  });

  it("names the token's agents, and refuses a bad slug with the server's message", async () => {
    const { page, orgId } = await app.signIn({ role: "admin" });
    // More agents than the form's reminder shows, as their first writes would register them.
    const slugs = Array.from({ length: 21 }, (_, i) => `bot-${String(i).padStart(2, "0")}`);
    await app.server.db.agent.createMany({ data: slugs.map((slug, i) => ({ id: `agt_known${i}`, orgId, slug, createdAt: new Date() })) });
    await openTokens(page);
    const form = panel(page, "New token");
    await expect.poll(async () => (await form.getByText("Known agents:").textContent())?.trim(), LONG).toBe(`Known agents: ${slugs.slice(0, 20).join(", ")} and more.`);
    await form.getByLabel("Name").fill("triage");
    await form.getByRole("checkbox", { name: "memory:read" }).check();
    await form.getByLabel("Agents (optional)").fill("Triage Bot");
    await form.getByRole("button", { name: "Create token" }).click();
    await expect.poll(() => form.getByRole("alert").textContent(), LONG).toContain("must be 1-63 lower-case letters");
    expect(await form.getByLabel("Token secret").count()).toBe(0);

    await form.getByLabel("Agents (optional)").fill("triage-bot, deploy-bot");
    await form.getByRole("button", { name: "Create token" }).click();
    await form.getByLabel("Token secret").waitFor(LONG);
    await expect.poll(async () => (await tokenRow(page, "triage").getByRole("cell").allTextContents())[3], LONG).toBe("triage-bot, deploy-bot");
  });

  it("shows members the list without the controls, and shows the server's refusal to someone demoted meanwhile", async () => {
    const owner = await app.signIn({ role: "owner" });
    await app.server.newToken(owner.orgId, { scopes: ["memory:read"], environment: "production" });
    const member = await app.signIn({ role: "member", orgId: owner.orgId });
    await openTokens(member.page);
    await member.page.getByRole("cell", { name: "memory:read" }).waitFor(LONG);
    await member.page.getByText("Only owners and admins create and revoke tokens").waitFor();
    expect(await member.page.getByRole("button", { name: "Create token" }).count()).toBe(0);
    expect(await member.page.getByRole("button", { name: "Revoke" }).count()).toBe(0);
    await app.checkA11y(member.page);

    // An admin demoted after the page loaded still sees the form: the server refuses, the page says why.
    const admin = await app.signIn({ role: "admin", orgId: owner.orgId });
    await openTokens(admin.page);
    await app.server.services.memberships.changeRole(owner.orgId, admin.person.userId, "member", "cli");
    const form = panel(admin.page, "New token");
    await form.getByLabel("Name").fill("not allowed");
    await form.getByRole("checkbox", { name: "memory:read" }).check();
    await form.getByRole("button", { name: "Create token" }).click();
    await expect.poll(() => form.getByRole("alert").textContent(), LONG).toContain("permission_denied");
    expect(await app.server.db.accessToken.count({ where: { orgId: owner.orgId } })).toBe(1);
  });
});
