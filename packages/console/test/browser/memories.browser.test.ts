import { apiClient } from "@engram/test-support";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";
import { LONG, panel } from "./support/locators";

describe("memory explorer and memory page", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());

  /** Encodes through /v1 with a token, as an assistant would; answers the new memory's id. */
  async function encode(token: string, body: { text: string; subject?: string; memoryKind?: "fact" | "procedure" | "decision" }, agent?: string) {
    const client = apiClient(app.server.url, token);
    const answer = agent ? await client.memory.encodeForAgent({ params: { agentSlug: agent }, body }) : await client.memory.encode({ body });
    if (answer.status !== 201) throw new Error(`encode answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.memory.id;
  }
  const rows = (page: Page) => page.getByRole("table").getByRole("row");
  const rowTexts = async (page: Page) => (await rows(page).allTextContents()).slice(1);

  it("searches with the retrieval engine (scores shown), narrows by filters kept in the URL, and lists without a query", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    const token = await app.server.newToken(orgId);
    const procedure = await encode(token, { text: "The payments service deploys with make release after CI is green.", subject: "payments-service", memoryKind: "procedure" });
    await encode(token, { text: "Payments deploys are frozen on Fridays.", subject: "payments-service", memoryKind: "decision" });
    await encode(token, { text: "The office plants are watered on Mondays.", memoryKind: "fact" });
    await encode(token, { text: "The deploy bot announces payments deploys in the releases channel.", memoryKind: "fact" }, "deploy-bot");

    await page.getByRole("link", { name: "Memories", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    // Without a query: every memory, newest first, no score column.
    await expect.poll(() => rowTexts(page), LONG).toHaveLength(4);
    expect(await page.getByRole("columnheader", { name: "Score" }).count()).toBe(0);
    expect((await rowTexts(page))[0]).toContain("deploy bot announces");

    await page.getByLabel("Search", { exact: true }).fill("how do we deploy payments");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("heading", { level: 2, name: "Search results" }).waitFor();
    await page.getByRole("columnheader", { name: "Score" }).waitFor();
    await expect.poll(() => rowTexts(page), LONG).toEqual(expect.arrayContaining([expect.stringContaining("make release after CI is green")]));
    const texts = await rowTexts(page);
    expect(texts.some((text) => text.includes("office plants"))).toBe(false);
    const procedureRow = rows(page).filter({ hasText: "make release after CI is green" });
    expect(Number(await procedureRow.getByRole("cell").nth(1).textContent())).toBeGreaterThan(0);
    expect(new URL(page.url()).searchParams.get("q")).toBe("how do we deploy payments");
    await app.checkA11y(page);
    await app.screenshot(page, "explorer");

    // A query ranks durable memories only: the other states cannot be picked while one is typed.
    expect(await page.getByRole("option", { name: "Suppressed" }).isDisabled()).toBe(true);
    expect(await page.getByRole("option", { name: "Durable" }).isDisabled()).toBe(false);

    await page.getByLabel("Kind").selectOption("procedure");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect.poll(() => rowTexts(page), LONG).toHaveLength(1);
    expect((await rowTexts(page))[0]).toContain("make release after CI is green");
    expect(new URL(page.url()).searchParams.get("kind")).toBe("procedure");

    await page.getByLabel("Kind").selectOption("");
    await page.getByLabel("Agent").selectOption("deploy-bot");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    // The previous answer also had one row: wait for the new one, not for the count.
    await expect.poll(async () => (await rowTexts(page)).join("\n"), LONG).toContain("deploy bot announces");
    expect(await rowTexts(page)).toHaveLength(1);

    // Back returns to the previous search, its filters back in the form.
    await page.goBack();
    await expect.poll(() => page.getByLabel("Kind").inputValue(), LONG).toBe("procedure");
    await expect.poll(async () => (await rowTexts(page)).join("\n"), LONG).toContain("make release after CI is green");
    expect(await rowTexts(page)).toHaveLength(1);
    expect(await page.getByLabel("Search", { exact: true }).inputValue()).toBe("how do we deploy payments");

    // A shared link asking for another state with a query gets the server's reason.
    await page.goto("/memories?q=deploy&state=suppressed");
    await expect.poll(() => page.getByRole("alert").textContent(), LONG).toContain("durable memories only");

    // Each row leads to its memory.
    await page.goto("/memories?subject=payments-service&kind=procedure");
    await page.getByRole("link", { name: "make release after CI is green" }).click();
    await page.waitForURL((url) => url.pathname === `/memories/${procedure}`);
    await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
    // And back to the search that led there.
    await page.getByRole("link", { name: "Back to memories" }).click();
    await page.waitForURL((url) => url.pathname === "/memories" && url.searchParams.get("subject") === "payments-service");
  });

  it("takes a typed agent slug once the agents are more than one page, suggesting the first page", async () => {
    const { page, orgId } = await app.signIn({ role: "member", plan: "spark" });
    const token = await app.server.newToken(orgId);
    // 500 agents, as their first writes would register them, then one past the first page that has a memory.
    await app.server.db.agent.createMany({
      data: Array.from({ length: 500 }, (_, i) => ({ id: `agt_many${String(i).padStart(4, "0")}`, orgId, slug: `agent-${String(i).padStart(4, "0")}`, createdAt: new Date() })),
    });
    await encode(token, { text: "The last agent keeps the runbook index." }, "zz-last");
    await encode(token, { text: "Written for the whole organization." });

    await page.goto("/memories");
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    const agent = page.getByRole("combobox", { name: "Agent" });
    await expect.poll(() => agent.evaluate((input) => input.tagName), LONG).toBe("INPUT");
    expect(await page.locator(`datalist[id="${await agent.getAttribute("list")}"] option`).count()).toBe(500);
    await agent.fill("zz-last");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    // The list before the search held that memory too: wait for the filtered answer, its one row alone.
    await page.waitForURL((url) => url.searchParams.get("agent") === "zz-last");
    await expect.poll(() => rowTexts(page), LONG).toEqual([expect.stringContaining("runbook index")]);
    await app.checkA11y(page);
  });

  it("shows a long history's first 500 changes, and the later ones when asked", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    const id = await encode(await app.server.newToken(orgId), { text: "The ledger's keys rotate on Fridays." });
    // A memory reinforced 500 times, written as the reinforcements would write their history.
    const start = Date.now();
    await app.server.db.memoryHistory.createMany({
      data: Array.from({ length: 500 }, (_, i) => ({
        id: `mhe_long${String(i).padStart(5, "0")}`,
        memoryId: id,
        action: "reinforced",
        fromState: "durable",
        toState: "durable",
        actor: `bot-${i}`,
        createdAt: new Date(start + 1_000 + i),
      })),
    });

    await page.goto(`/memories/${id}`);
    await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
    const history = page.locator(".timeline > li");
    await expect.poll(() => history.count(), LONG).toBe(500);
    await page.getByRole("button", { name: "Later changes" }).click();
    await expect.poll(() => history.count(), LONG).toBe(501);
    expect(await history.last().textContent()).toContain("bot-499");
    expect(await page.getByRole("button", { name: "Later changes" }).count()).toBe(0);
  });

  it("shows a memory's source and history, changes its state with a reason, and a tombstone removes it from retrieval", async () => {
    const { page, orgId, person } = await app.signIn({ role: "admin", plan: "spark" });
    const token = await app.server.newToken(orgId);
    const client = apiClient(app.server.url, token);
    const id = await encode(token, { text: "Staging databases are reset every Sunday night.", subject: "staging" });
    expect((await client.memory.reinforce({ params: { id }, body: { reason: "Answered a question", actor: "oncall-bot" } })).status).toBe(200);
    const retrievedIds = async () => {
      const answer = await client.memory.retrieve({ body: { query: "staging databases reset" } });
      if (answer.status !== 200) throw new Error(`retrieve answered ${answer.status}`);
      return answer.body.memories.map((memory) => memory.id);
    };
    expect(await retrievedIds()).toContain(id);

    await page.goto(`/memories/${id}`);
    await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
    const history = page.locator(".timeline > li");
    await expect.poll(() => history.allTextContents(), LONG).toEqual([expect.stringContaining("Created"), expect.stringContaining("Reinforced")]);
    expect(await history.nth(1).textContent()).toContain("oncall-bot");
    expect(await history.nth(1).textContent()).toContain("Answered a question");
    const source = panel(page, "Source");
    expect(await source.textContent()).toContain("API");

    // Only the actions valid for a durable memory.
    const actions = panel(page, "Actions");
    expect(await actions.getByRole("button").allTextContents()).toEqual(["Reinforce", "Suppress", "Tombstone"]);

    await actions.getByRole("button", { name: "Suppress" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason").fill("Outdated since the move to nightly resets");
    await app.checkA11y(page);
    await dialog.getByRole("button", { name: "Suppress" }).click();
    await expect.poll(() => history.count(), LONG).toBe(3);
    expect(await history.nth(2).textContent()).toContain("Outdated since the move to nightly resets");
    expect(await panel(page, "Details").textContent()).toContain("Suppressed");
    expect(await actions.getByRole("button").allTextContents()).toEqual(["Reinforce", "Restore", "Tombstone"]);
    expect(await retrievedIds()).not.toContain(id);

    await actions.getByRole("button", { name: "Restore" }).click();
    await dialog.getByLabel("Reason").fill("Still true after all");
    await dialog.getByRole("button", { name: "Restore" }).click();
    await expect.poll(() => history.count(), LONG).toBe(4);
    expect(await retrievedIds()).toContain(id);

    // A dialog opens empty each time: the last reason is not offered again.
    await actions.getByRole("button", { name: "Reinforce" }).click();
    await dialog.getByLabel("Reason").fill("Answered the on-call question");
    await dialog.getByRole("button", { name: "Reinforce" }).click();
    await expect.poll(() => history.count(), LONG).toBe(5);
    await actions.getByRole("button", { name: "Reinforce" }).click();
    expect(await dialog.getByLabel("Reason").inputValue()).toBe("");
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await actions.getByRole("button", { name: "Tombstone" }).click();
    expect(await dialog.textContent()).toContain("cannot be undone");
    // Nothing changes until confirmed: cancelling leaves the memory as it was.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await history.count()).toBe(5);
    await actions.getByRole("button", { name: "Tombstone" }).click();
    await dialog.getByLabel("Reason").fill("Staging is no longer reset");
    await dialog.getByRole("button", { name: "Tombstone" }).click();
    await expect.poll(() => history.count(), LONG).toBe(6);
    const last = await history.nth(5).textContent();
    expect(last).toContain("Tombstoned");
    expect(last).toContain("Staging is no longer reset");
    expect(last).toContain(person.email);
    expect(await panel(page, "Details").textContent()).toContain("Tombstoned");
    expect(await actions.getByRole("button").count()).toBe(0);
    expect(await actions.textContent()).toContain("nothing more can be done");
    await app.checkA11y(page);
    await app.screenshot(page, "memory");

    // Gone for an assistant retrieving with a token, and recorded in the database.
    expect(await retrievedIds()).not.toContain(id);
    const stored = await app.server.db.memory.findUnique({ where: { id } });
    expect(stored?.state).toBe("tombstoned");
  });

  it("shows a member the memory without any action, and says why", async () => {
    const { page, orgId } = await app.signIn({ role: "member", plan: "spark" });
    const id = await encode(await app.server.newToken(orgId), { text: "Members can read the on-call rota memory.", subject: "on-call" });
    await page.goto("/memories");
    await page.getByRole("link", { name: "Members can read the on-call rota memory." }).click();
    await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
    const actions = panel(page, "Actions");
    await expect.poll(() => actions.textContent(), LONG).toContain("Only owners and admins change a memory's state");
    expect(await page.getByRole("button", { name: /Reinforce|Suppress|Restore|Tombstone/ }).count()).toBe(0);
    expect(await page.locator(".timeline > li").count()).toBe(1);
    await app.checkA11y(page);
    expect(page.url()).toContain(id);
  });
});
