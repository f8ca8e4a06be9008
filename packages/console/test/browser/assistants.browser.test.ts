import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";
import { LONG, panel } from "./support/locators";

describe("assistants and the capabilities editor", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());
  // An uncaught error in a page fails the test that caused it.
  afterEach(() => expect(app.pageErrors).toEqual([]));
  /** One capability of the editor: its checkbox, config fields and the server's problems with it. */
  const capability = (page: Page, name: string) => page.getByRole("group", { name, exact: true });
  const refusal = (page: Page) => panel(page, "Capabilities").getByRole("alert");
  const stored = (orgId: string, assistantId: string) => app.server.services.assistants.get(orgId, assistantId, "cli");

  async function openAssistants(page: Page) {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Assistants", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Assistants" }).waitFor();
  }

  async function createAssistant(page: Page, name: string, type: "org_shared" | "employee_personal") {
    const form = panel(page, "New assistant");
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Type").selectOption(type);
    await form.getByRole("button", { name: "Create assistant" }).click();
    await page.getByRole("rowheader", { name, exact: true }).waitFor(LONG);
  }

  async function save(page: Page) {
    await page.getByRole("button", { name: "Save capabilities" }).click();
  }

  it("creates and renames an assistant; each capability rule the server enforces shows beside its capability; a valid set is saved and logged", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    await openAssistants(page);
    await page.getByText("No assistants yet").waitFor(LONG);
    await createAssistant(page, "Helpdesk", "org_shared");
    await app.checkA11y(page);
    await app.screenshot(page, "assistants");

    await page.getByRole("rowheader", { name: "Helpdesk", exact: true }).getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Helpdesk" }).waitFor(LONG);
    const assistantId = new URL(page.url()).pathname.split("/").pop()!;

    // Rename, conditional on the version shown.
    await panel(page, "Details").getByLabel("Name").fill("Helpdesk bot");
    await panel(page, "Details").getByRole("button", { name: "Rename" }).click();
    await page.getByRole("heading", { level: 1, name: "Helpdesk bot" }).waitFor(LONG);
    expect((await stored(orgId, assistantId)).name).toBe("Helpdesk bot");
    const history = panel(page, "Change history");
    await history.getByText("From “Helpdesk” to “Helpdesk bot”.").waitFor(LONG);

    // The registry by category, with the tier's limit and what this assistant cannot have, and why.
    await page.getByText("1 of 3 enabled").waitFor(LONG);
    for (const category of ["Knowledge", "Communication", "Productivity", "Engineering", "Support"]) {
      await page.getByRole("heading", { level: 3, name: category }).waitFor();
    }
    expect(await capability(page, "Answer questions").getByRole("checkbox").isDisabled()).toBe(true);
    expect(await capability(page, "Draft messages").getByRole("checkbox").isDisabled()).toBe(true);
    await capability(page, "Draft messages").getByText("For personal assistants only.").waitFor();
    expect(await capability(page, "Triage alerts").getByRole("checkbox").isDisabled()).toBe(true);
    await capability(page, "Triage alerts").getByText("Needs the boost plan or above; this organization is on spark.").waitFor();

    // Over the tier's limit (a problem of the whole set, shown on top), a missing required field, a list entry too long.
    await capability(page, "Search memory").getByRole("checkbox").check();
    await capability(page, "Translate messages").getByRole("checkbox").check();
    await capability(page, "Translate messages").getByLabel("Target languages").fill("de\nnot-a-language-tag-at-all");
    await capability(page, "Explain code").getByRole("checkbox").check();
    await page.getByText("4 of 3 enabled").waitFor();
    await capability(page, "Search memory").getByLabel("Max memories").waitFor(LONG);
    await save(page);
    await expect.poll(() => refusal(page).textContent(), LONG).toContain("The spark tier allows at most 3 capabilities, answer_questions included; 4 were given.");
    await capability(page, "Search memory").getByText("capabilityConfigs.search_memory.maxMemories is required.").waitFor();
    await capability(page, "Translate messages").getByText("capabilityConfigs.translate_messages.targetLanguages[1] may be at most 16 characters long; got 25.").waitFor();
    expect(await capability(page, "Explain code").locator(".problem-list").count()).toBe(0);
    expect(await refusal(page).getByRole("link", { name: "Search memory" }).count()).toBe(1);
    await app.checkA11y(page);
    await app.screenshot(page, "assistant-capabilities");

    // Out of range, then not a whole number.
    await capability(page, "Explain code").getByRole("checkbox").uncheck();
    await capability(page, "Translate messages").getByRole("checkbox").uncheck();
    await capability(page, "Search memory").getByLabel("Max memories").fill("50");
    await save(page);
    await capability(page, "Search memory").getByText("capabilityConfigs.search_memory.maxMemories must be between 1 and 20; got 50.").waitFor(LONG);
    expect(await refusal(page).textContent()).not.toContain("tier allows");
    await capability(page, "Search memory").getByLabel("Max memories").fill("2.5");
    await save(page);
    await capability(page, "Search memory").getByText("capabilityConfigs.search_memory.maxMemories must be an integer; got 2.5.").waitFor(LONG);
    expect((await stored(orgId, assistantId)).capabilities).toEqual(["answer_questions"]);

    // A valid set: saved whole, then shown in the change history.
    await capability(page, "Search memory").getByLabel("Max memories").fill("5");
    await capability(page, "Summarize threads").getByRole("checkbox").check();
    await capability(page, "Summarize threads").getByLabel("Max messages").fill("100");
    await save(page);
    await panel(page, "Capabilities").getByText("Helpdesk bot now has 3 capabilities").waitFor(LONG);
    const saved = await stored(orgId, assistantId);
    expect(saved.capabilities).toEqual(["answer_questions", "search_memory", "summarize_threads"]);
    expect(saved.capabilityConfigs).toEqual({ search_memory: { maxMemories: 5 }, summarize_threads: { maxMessages: 100 } });
    await history.getByText("Turned on: Search memory, Summarize threads.").waitFor(LONG);
    await history.getByText("Search memory: max memories 5.").waitFor();
    await page.getByText("3 of 3 enabled").waitFor();
    expect(await capability(page, "Search memory").getByLabel("Max memories").inputValue()).toBe("5");
    await app.checkA11y(page);
  });

  it("keeps a capability the plan no longer allows until someone turns it off, with the server's reason beside it", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    const { id } = await app.server.services.assistants.create(orgId, { name: "Digest", type: "org_shared" }, "cli");
    await app.server.services.assistants.updateCapabilities(
      orgId,
      id,
      { capabilities: ["search_memory", "summarize_threads"], capabilityConfigs: { search_memory: { maxMemories: 5 }, summarize_threads: { maxMessages: 100 } } },
      { actor: "cli", tier: "spark" },
    );
    await app.server.db.organization.update({ where: { id: orgId }, data: { plan: "free" } });

    await page.goto(`/assistants/${id}`);
    await capability(page, "Summarize threads").getByText("Enabled earlier, but unavailable now").waitFor(LONG);
    expect(await capability(page, "Summarize threads").getByRole("checkbox").isDisabled()).toBe(false);
    await capability(page, "Search memory").getByLabel("Max memories").waitFor(LONG);
    await save(page);
    await capability(page, "Summarize threads")
      .getByText("summarize_threads needs the spark tier or above; this organization is on the free tier.")
      .waitFor(LONG);
    expect(await capability(page, "Search memory").locator(".problem-list").count()).toBe(0);

    await capability(page, "Summarize threads").getByRole("checkbox").uncheck();
    expect(await capability(page, "Summarize threads").getByRole("checkbox").isDisabled()).toBe(true);
    await save(page);
    await panel(page, "Capabilities").getByText("Digest now has 2 capabilities").waitFor(LONG);
    await panel(page, "Change history").getByText("Turned off: Summarize threads.").waitFor(LONG);
    expect((await stored(orgId, id)).capabilities).toEqual(["answer_questions", "search_memory"]);
    expect((await stored(orgId, id)).capabilityConfigs).toEqual({ search_memory: { maxMemories: 5 } });
  });

  it("refuses a save based on an older version and offers the latest", async () => {
    const { page, orgId } = await app.signIn({ role: "admin", plan: "seed" });
    await openAssistants(page);
    await createAssistant(page, "Release notes", "org_shared");
    await page.getByRole("rowheader", { name: "Release notes", exact: true }).getByRole("link").click();
    await page.getByText("1 of 7 enabled").waitFor(LONG);
    const assistantId = new URL(page.url()).pathname.split("/").pop()!;

    // A colleague changes it meanwhile.
    await app.server.services.assistants.updateCapabilities(orgId, assistantId, { capabilities: ["cite_sources"], capabilityConfigs: {} }, { actor: "cli", tier: "seed" });
    await capability(page, "Explain code").getByRole("checkbox").check();
    await save(page);
    await expect.poll(() => panel(page, "Capabilities").getByRole("alert").textContent(), LONG).toContain("precondition_failed");
    expect((await stored(orgId, assistantId)).capabilities).toEqual(["answer_questions", "cite_sources"]);

    await page.getByRole("button", { name: "Load the latest version (discards your changes)" }).click();
    await expect.poll(() => capability(page, "Cite sources").getByRole("checkbox").isChecked(), LONG).toBe(true);
    expect(await capability(page, "Explain code").getByRole("checkbox").isChecked()).toBe(false);
    await page.getByText("2 of 7 enabled").waitFor();
  });

  it("deletes an assistant after confirmation, refusing a version changed meanwhile, and keeps its change log", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "seed" });
    await openAssistants(page);
    await createAssistant(page, "Old helper", "org_shared");
    await page.getByRole("rowheader", { name: "Old helper", exact: true }).getByRole("link").click();
    await page.getByText("1 of 7 enabled").waitFor(LONG);
    const assistantId = new URL(page.url()).pathname.split("/").pop()!;

    // Cancelling changes nothing.
    await page.getByRole("button", { name: "Delete assistant" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete Old helper?" });
    expect(await dialog.textContent()).toContain("cannot be undone");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await stored(orgId, assistantId)).name).toBe("Old helper");

    // A colleague changes it meanwhile: the delete names the version shown, so it is refused.
    await app.server.services.assistants.updateCapabilities(orgId, assistantId, { capabilities: ["cite_sources"], capabilityConfigs: {} }, { actor: "cli", tier: "seed" });
    await page.getByRole("button", { name: "Delete assistant" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => dialog.getByRole("alert").textContent(), LONG).toContain("precondition_failed");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await stored(orgId, assistantId)).name).toBe("Old helper");

    await page.reload();
    await page.getByText("2 of 7 enabled").waitFor(LONG);
    await page.getByRole("button", { name: "Delete assistant" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("heading", { level: 1, name: "Assistants" }).waitFor(LONG);
    expect(await page.getByRole("rowheader", { name: "Old helper", exact: true }).count()).toBe(0);
    await expect(stored(orgId, assistantId)).rejects.toMatchObject({ code: "assistant_not_found" });
    expect((await app.server.services.assistants.changes(orgId, assistantId, "cli", { limit: 20 })).changes.map((change) => change.action)).toContain("deleted");
  });

  it("lists 20 assistants and more when asked, and names an assistant the person may not see as not found", async () => {
    const owner = await app.signIn({ role: "owner", plan: "spark" });
    for (let i = 0; i < 21; i++) await app.server.services.assistants.create(owner.orgId, { name: `Bot ${String(i).padStart(2, "0")}`, type: "org_shared" }, "cli");
    const member = await app.signIn({ role: "member", orgId: owner.orgId });
    const theirs = await app.server.services.assistants.create(owner.orgId, { name: "Owner's own", type: "employee_personal", ownerUserId: owner.person.userId }, "cli");
    await member.page.goto("/assistants");
    const named = (name: string) => member.page.getByRole("rowheader", { name, exact: true });
    await named("Bot 19").waitFor(LONG);
    expect(await named("Bot 20").count()).toBe(0);
    await member.page.getByRole("button", { name: "More assistants" }).click();
    await named("Bot 20").waitFor(LONG);
    expect(await member.page.getByRole("button", { name: "More assistants" }).count()).toBe(0);

    await member.page.goto(`/assistants/${theirs.id}`);
    await member.page.getByRole("heading", { level: 1, name: "Assistant not found" }).waitFor(LONG);
    await owner.page.goto(`/assistants/${theirs.id}`);
    await owner.page.getByRole("heading", { level: 1, name: "Owner's own" }).waitFor(LONG);
  });

  it("shows the latest 20 changes, and the earlier ones when asked", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    const { id } = await app.server.services.assistants.create(orgId, { name: "Name 0", type: "org_shared" }, "cli");
    for (let i = 1; i <= 21; i++) await app.server.services.assistants.rename(orgId, id, `Name ${i}`, "cli");

    await page.goto(`/assistants/${id}`);
    const changes = panel(page, "Change history").locator(".change-history > li");
    await expect.poll(() => changes.count(), LONG).toBe(20);
    expect(await changes.first().textContent()).toContain("version 22");
    await page.getByRole("button", { name: "Earlier changes" }).click();
    await expect.poll(() => changes.count(), LONG).toBe(22);
    expect(await changes.last().textContent()).toContain("Created as “Name 0”");
    expect(await page.getByRole("button", { name: "Earlier changes" }).count()).toBe(0);
  });

  it("lets a member make a personal assistant and shows organization-wide ones read-only", async () => {
    const owner = await app.signIn({ role: "owner", plan: "rise" });
    const shared = await app.server.services.assistants.create(owner.orgId, { name: "Team bot", type: "org_shared" }, "cli");
    const member = await app.signIn({ role: "member", orgId: owner.orgId });
    await openAssistants(member.page);
    const form = panel(member.page, "New assistant");
    expect(await form.getByRole("option", { name: "Organization-wide" }).isDisabled()).toBe(true);
    await createAssistant(member.page, "My helper", "employee_personal");
    await member.page.getByRole("row").filter({ hasText: "My helper" }).getByText("(yours)").waitFor();

    await member.page.getByRole("rowheader", { name: "Team bot", exact: true }).getByRole("link").click();
    await member.page.getByRole("heading", { level: 1, name: "Team bot" }).waitFor(LONG);
    await panel(member.page, "Details").getByText("Only owners and admins change organization-wide assistants.").waitFor();
    await capability(member.page, "Search memory").waitFor(LONG);
    expect(await capability(member.page, "Search memory").getByRole("checkbox").isDisabled()).toBe(true);
    expect(await member.page.getByRole("button", { name: "Save capabilities" }).count()).toBe(0);
    expect(await member.page.getByRole("button", { name: "Rename" }).count()).toBe(0);
    await app.checkA11y(member.page);

    // Their own personal assistant is theirs to change: personal capabilities are offered, organization ones are not.
    await member.page.goto("/assistants");
    await member.page.getByRole("rowheader", { name: "My helper", exact: true }).getByRole("link").click();
    await capability(member.page, "Daily briefing").waitFor(LONG);
    expect(await capability(member.page, "Daily briefing").getByRole("checkbox").isDisabled()).toBe(false);
    await capability(member.page, "Route requests").getByText("For organization-wide assistants only.").waitFor();
    expect(shared.type).toBe("org_shared");
  });
});
