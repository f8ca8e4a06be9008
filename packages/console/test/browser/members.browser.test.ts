import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBrowser, openConsole } from "./support/console-browser";
import { LONG, panel } from "./support/locators";

describe("members page", () => {
  let app: ConsoleBrowser;
  beforeAll(async () => {
    app = await openConsole();
  });
  afterAll(() => app?.close());
  // An uncaught error in a page fails the test that caused it.
  afterEach(() => expect(app.pageErrors).toEqual([]));
  const memberRow = (page: Page, email: string) => page.getByRole("row").filter({ hasText: email });
  const roleOf = async (orgId: string, userId: string) => (await app.server.db.membership.findFirst({ where: { orgId, userId } }))?.role ?? null;
  const signInStatus = async (email: string, password: string) =>
    (await fetch(`${app.server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) })).status;

  async function openMembers(page: Page) {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Members", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Members" }).waitFor();
  }

  it("adds a new person (temporary password shown once), changes their role and removes them", async () => {
    const { page, orgId, person } = await app.signIn({ role: "owner" });
    await openMembers(page);
    await memberRow(page, person.email).getByText("(you)").waitFor(LONG);

    const email = `new-${randomUUID().slice(0, 8)}@example.com`;
    const form = panel(page, "Add a member");
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Display name (optional)").fill("Ada Newcomer");
    await form.getByLabel("Role").selectOption("admin");
    await form.getByRole("button", { name: "Add member" }).click();

    const passwordField = form.getByRole("textbox", { name: "Temporary password" });
    await passwordField.waitFor(LONG);
    const temporaryPassword = await passwordField.inputValue();
    await form.getByText("you will not see it again").waitFor();
    // The password is real: the new person signs in with it.
    expect(await signInStatus(email, temporaryPassword)).toBe(200);

    const row = memberRow(page, email);
    await row.getByRole("rowheader", { name: "Ada Newcomer" }).waitFor(LONG);
    expect(await row.getByLabel(`Role of ${email}`, { exact: true }).inputValue()).toBe("admin");
    await app.checkA11y(page);
    await app.screenshot(page, "members");
    await form.getByRole("button", { name: "I have saved it" }).click();
    await passwordField.waitFor({ state: "detached" });

    // Changing a role takes an explicit Save.
    const newcomer = await app.server.db.user.findFirstOrThrow({ where: { email } });
    const save = row.getByRole("button", { name: `Save role of ${email}` });
    expect(await save.isDisabled()).toBe(true);
    await row.getByLabel(`Role of ${email}`, { exact: true }).selectOption("member");
    expect(await roleOf(orgId, newcomer.id)).toBe("admin");
    await save.click();
    await expect.poll(() => roleOf(orgId, newcomer.id), LONG).toBe("member");
    await expect.poll(() => save.isDisabled(), LONG).toBe(true);

    // Someone who already has an account is added without a password.
    const other = await app.server.newPerson(await app.server.newOrg(), "member");
    await form.getByLabel("Email").fill(other.email);
    await form.getByRole("button", { name: "Add member" }).click();
    await form.getByText(`${other.email} was added. They already had an account`).waitFor(LONG);
    expect(await form.getByRole("textbox", { name: "Temporary password" }).count()).toBe(0);
    await memberRow(page, other.email).waitFor(LONG);

    // Removing asks first.
    await row.getByRole("button", { name: "Remove" }).click();
    await page.getByRole("dialog", { name: "Remove Ada Newcomer?" }).getByRole("button", { name: "Remove member" }).click();
    await row.waitFor({ state: "detached", ...LONG });
    expect(await roleOf(orgId, newcomer.id)).toBeNull();
  });

  it("shows the server's refusal beside the row when the last owner would be removed or demoted", async () => {
    const { page, orgId, person } = await app.signIn({ role: "owner" });
    await openMembers(page);
    const row = memberRow(page, person.email);
    await row.waitFor(LONG);

    await row.getByRole("button", { name: "Remove" }).click();
    expect(await page.getByRole("dialog").getByRole("heading").textContent()).toBe("Remove yourself?");
    await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
    await expect.poll(() => row.getByRole("alert").textContent(), LONG).toContain("An organization needs an owner");
    expect(await row.getByRole("alert").textContent()).toContain("last_owner");

    await row.getByLabel(`Role of ${person.email}`, { exact: true }).selectOption("admin");
    // Your own role is changed only after a confirmation.
    await row.getByRole("button", { name: "Save", exact: true }).click();
    const confirm = page.getByRole("dialog", { name: "Change your own role to Admin?" });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect(await roleOf(orgId, person.userId)).toBe("owner");
    await row.getByRole("button", { name: "Save", exact: true }).click();
    await confirm.getByRole("button", { name: "Change my role" }).click();
    await expect.poll(() => row.getByRole("alert").textContent(), LONG).toContain("make someone else owner first");
    // The select shows the role that holds again.
    expect(await row.getByLabel(`Role of ${person.email}`, { exact: true }).inputValue()).toBe("owner");
    expect(await roleOf(orgId, person.userId)).toBe("owner");
    await app.checkA11y(page);
  });

  it("keeps the owner role out of an admin's reach and shows members a read-only list", async () => {
    const owner = await app.signIn({ role: "owner" });
    const admin = await app.signIn({ role: "admin", orgId: owner.orgId });
    await openMembers(admin.page);
    const ownerRow = memberRow(admin.page, owner.person.email);
    await ownerRow.getByText("Only owners change or remove an owner.").waitFor(LONG);
    expect(await ownerRow.getByRole("combobox").count()).toBe(0);
    expect(await ownerRow.getByRole("button", { name: "Remove" }).count()).toBe(0);
    const grantable = await panel(admin.page, "Add a member").getByLabel("Role").locator("option").allTextContents();
    expect(grantable).toEqual(["Admin", "Member"]);

    const member = await app.signIn({ role: "member", orgId: owner.orgId });
    await openMembers(member.page);
    await memberRow(member.page, owner.person.email).waitFor(LONG);
    await member.page.getByText("Only owners and admins add, change and remove members").waitFor();
    expect(await member.page.getByRole("combobox", { name: /^Role of/ }).count()).toBe(0);
    expect(await member.page.getByRole("button", { name: "Remove" }).count()).toBe(0);
    expect(await member.page.getByRole("button", { name: "Add member" }).count()).toBe(0);
    await app.checkA11y(member.page);
  });
});
