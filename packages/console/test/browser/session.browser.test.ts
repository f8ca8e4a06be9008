import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";

describe("signing in and out", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());

  it("serves the console at / and sends a visitor without a session to sign in", async () => {
    const context = await app.browser.newContext({ baseURL: app.server.url });
    const page = await context.newPage();
    const answer = await page.goto("/memories?q=deploys");
    expect(answer?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("heading", { level: 1, name: "Sign in to Engram" }).waitFor();
    expect(new URL(page.url()).searchParams.get("next")).toBe("/memories?q=deploys");
    await app.checkA11y(page);
    await app.screenshot(page, "sign-in");
    await context.close();
  });

  it("refuses a wrong password with the server's message, and brings the person back where they were going", async () => {
    const orgId = await app.server.newOrg();
    const person = await app.server.newPerson(orgId, "owner");
    const context = await app.browser.newContext({ baseURL: app.server.url });
    const page = await context.newPage();
    await page.goto("/events");
    await page.getByLabel("Email").fill(person.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("invalid_credentials");

    await page.getByLabel("Password").fill(person.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/events");
    await context.close();
  });

  it("signs out: the page returns to sign-in and the old session cookie is refused", async () => {
    const { page, context } = await app.signIn({ role: "member" });
    await app.checkA11y(page);
    const [cookie] = (await context.cookies()).filter((c) => c.name === "engram_session");
    expect(cookie?.httpOnly).toBe(true);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to Engram" }).waitFor();
    expect((await context.cookies()).some((c) => c.name === "engram_session")).toBe(false);

    const replayed = await fetch(`${app.server.url}/api/auth/me`, { headers: { cookie: `engram_session=${cookie!.value}` } });
    expect(replayed.status).toBe(401);
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Sign in to Engram" }).waitFor();
  });

  it("changes the password on the Account page: the old one stops working, the new one signs in", async () => {
    const { page, person } = await app.signIn({ role: "member" });
    await page.getByRole("link", { name: `Account: ${person.email}` }).click();
    await page.getByRole("heading", { level: 1, name: "Account" }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("main");

    await page.getByLabel("Current password").fill(person.password);
    await page.getByLabel("New password", { exact: true }).fill("a new and long password");
    await page.getByLabel("New password, again").fill("a different one entirely");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("The two new passwords differ.").waitFor();

    await page.getByLabel("New password, again").fill("a new and long password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("status").filter({ hasText: "Password changed." }).waitFor();
    await app.checkA11y(page);
    await app.screenshot(page, "account");
    // This browser stays signed in; elsewhere only the new password works.
    expect((await page.request.get("/api/auth/me")).status()).toBe(200);
    const login = (password: string) =>
      fetch(`${app.server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: person.email, password }) });
    expect((await login(person.password)).status).toBe(401);
    expect((await login("a new and long password")).status).toBe(200);
  });

  it("switches organization and environment from the header", async () => {
    const first = await app.signIn({ role: "owner" });
    const secondOrg = await app.server.newOrg();
    await app.server.services.memberships.add(secondOrg, first.person.userId, "member", "cli");
    await first.page.reload();
    await first.page.getByLabel("Organization").selectOption(secondOrg);
    await expect.poll(async () => (await (await first.page.request.get("/api/organization")).json()).organization.id).toBe(secondOrg);

    await first.page.getByLabel("Environment").selectOption("test");
    await first.page.reload();
    await expect.poll(() => first.page.getByLabel("Environment").inputValue()).toBe("test");
    await expect(first.page.getByText("environment.", { exact: false }).first().textContent()).resolves.toContain("Test");
  });
});
