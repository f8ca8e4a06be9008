import { apiClient } from "@engram/test-support";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole, type Person } from "./support/console-browser";
import { LONG, panel } from "./support/locators";

/**
 * The console against what a hostile link or a hostile write can put in front of it: `next` addresses that
 * leave the site, markup and `javascript:` URLs in stored text, a memory address that spells another route,
 * and a session that ends while a page is open.
 */
describe("the console against hostile data and links", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());

  /** Signs in through the form on a fresh browser that first opened `path`. */
  async function signInFrom(person: Person, path: string): Promise<Page> {
    const context = await app.browser.newContext({ baseURL: app.server.url });
    const page = await context.newPage();
    page.on("pageerror", (error) => app.pageErrors.push(`${page.url()}: ${error.message}`));
    await page.goto(path);
    await page.getByLabel("Email").fill(person.email);
    await page.getByLabel("Password").fill(person.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    return page;
  }

  it("after signing in, goes only to a path of this console, whatever `next` says", async () => {
    const orgId = await app.server.newOrg();
    const person = await app.server.newPerson(orgId, "member");
    const origin = new URL(app.server.url).origin;
    const hostile = ["//evil.example/x", "/\\evil.example", "/\\/evil.example", "/\t/evil.example", "/.//evil.example", "/x/..//evil.example", "/\n/evil.example", "\\\\evil.example", "javascript:alert(1)", "https://evil.example/", " /events"];
    for (const next of hostile) {
      const errorsBefore = app.pageErrors.length;
      const page = await signInFrom(person, `/sign-in?next=${encodeURIComponent(next)}`);
      await page
        .getByRole("heading", { level: 1, name: "Overview" })
        .waitFor(LONG)
        .catch((error: Error) => {
          throw new Error(`next=${JSON.stringify(next)} ended at ${page.url()} (${app.pageErrors.slice(errorsBefore).join("; ")}): ${error.message}`);
        });
      expect({ origin: new URL(page.url()).origin, path: new URL(page.url()).pathname }, JSON.stringify(next)).toEqual({ origin, path: "/" });
      expect(app.pageErrors.slice(errorsBefore), JSON.stringify(next)).toEqual([]);
      await page.context().close();
    }
    // A path of the console, with its query and fragment, is kept.
    const page = await signInFrom(person, `/sign-in?next=${encodeURIComponent("/events?type=deploy.completed#top")}`);
    await page.waitForURL((url) => url.pathname === "/events", LONG);
    expect(new URL(page.url()).search).toBe("?type=deploy.completed");
    await page.context().close();
  });

  it("shows markup and javascript: URLs in memories and event metadata as text, never as elements or links", async () => {
    const { page, orgId } = await app.signIn({ role: "owner", plan: "spark" });
    const token = await app.server.newToken(orgId);
    const client = apiClient(app.server.url, token);
    const markup = `<img src=x onerror="window.__pwned='img'"><a href="javascript:window.__pwned='link'">open</a> javascript:window.__pwned='text'`;
    const encoded = await client.memory.encode({ body: { text: markup, subject: "<b>subject</b>" } });
    if (encoded.status !== 201) throw new Error(`encode answered ${encoded.status}`);
    const event = await client.events.ingest({
      body: { type: "deploy.completed", text: markup, source: "<script>window.__pwned='source'</script>", subject: "checkout", metadata: { url: "javascript:window.__pwned='meta'", html: "<svg onload=\"window.__pwned='svg'\">" } },
    });
    expect(event.status).toBe(201);

    const inert = async (what: string) => {
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), what).toBeUndefined();
      const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((link) => link.getAttribute("href") ?? ""));
      expect(hrefs.filter((href) => !href.startsWith("/") && !href.startsWith("#")), what).toEqual([]);
      expect(await page.locator("main img, main svg[onload], main script").count(), what).toBe(0);
    };

    await page.goto(`/memories/${encoded.body.memory.id}`);
    await page.getByText(markup).first().waitFor(LONG);
    await inert("memory page");

    await page.goto("/events");
    const metadata = page.getByText("Metadata").first();
    await metadata.waitFor(LONG);
    await metadata.click();
    await page.getByText("javascript:window.__pwned='meta'", { exact: false }).first().waitFor(LONG);
    await inert("events page");

    await page.goto("/memories");
    await page.getByRole("link", { name: markup }).first().waitFor(LONG);
    await inert("explorer");
  });

  it("asks the server for the memory a link names, even when its id spells another route", async () => {
    const { page } = await app.signIn({ role: "owner" });
    const requested: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/")) requested.push(url.pathname);
    });
    // Client-side navigation, as a link inside the console would do it.
    await page.evaluate(() => {
      history.pushState(null, "", "/memories/..%5Corganization%5Ctokens");
      dispatchEvent(new PopStateEvent("popstate"));
    });
    await expect.poll(() => page.getByRole("alert").textContent(), LONG).toContain("memory_not_found");
    expect(requested).toContain("/api/memory/..%5Corganization%5Ctokens");
    expect(requested).not.toContain("/api/organization/tokens");
  });

  it("sends a person whose session ended elsewhere to sign in when they act, and back to the same page after", async () => {
    const { page, context, orgId, person } = await app.signIn({ role: "owner" });
    const token = await app.server.newToken(orgId);
    const encoded = await apiClient(app.server.url, token).memory.encode({ body: { text: "A memory whose page stays open." } });
    if (encoded.status !== 201) throw new Error(`encode answered ${encoded.status}`);
    const id = encoded.body.memory.id;
    await page.goto(`/memories/${id}`);
    await panel(page, "Actions").getByRole("button", { name: "Suppress" }).waitFor(LONG);

    // Signed out from another tab: the cookie this page holds is no longer a session.
    const [cookie] = (await context.cookies()).filter((c) => c.name === "engram_session");
    const signedOut = await fetch(`${app.server.url}/api/auth/logout`, { method: "POST", headers: { cookie: `engram_session=${cookie!.value}`, origin: app.server.url } });
    expect(signedOut.status).toBe(200);

    await panel(page, "Actions").getByRole("button", { name: "Suppress" }).click();
    const dialog = page.getByRole("dialog", { name: "Suppress this memory?" });
    await dialog.getByLabel("Reason").fill("Checked by hand");
    await dialog.getByRole("button", { name: "Suppress" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to Engram" }).waitFor(LONG);
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/memories/${id}`);
    expect((await app.server.db.memory.findUniqueOrThrow({ where: { id } })).state).toBe("durable");

    await page.getByLabel("Email").fill(person.email);
    await page.getByLabel("Password").fill(person.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === `/memories/${id}`, LONG);
    await panel(page, "Actions").getByRole("button", { name: "Suppress" }).waitFor(LONG);
  });
});
