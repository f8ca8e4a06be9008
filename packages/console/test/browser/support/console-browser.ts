import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer, type TestServerOptions } from "@engram/test-support";
import axe from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { inject } from "vitest";

/** Debian's Chromium (`apt-get install chromium`); never a downloaded browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOTS = fileURLToPath(new URL("../../../test-results/screenshots/", import.meta.url));
const DESKTOP = { width: 1280, height: 860 };
const NARROW = { width: 360, height: 780 };

type Role = "owner" | "admin" | "member";
type Plan = NonNullable<Parameters<TestServer["newOrg"]>[0]>["plan"];

export interface Person {
  userId: string;
  email: string;
  password: string;
}

export interface SignedInPage {
  page: Page;
  context: BrowserContext;
  orgId: string;
  person: Person;
}

export interface ConsoleBrowser {
  server: TestServer;
  browser: Browser;
  /** A new organization (on `plan`) and a person with `role` in it, signed in through the form in a browser of their own. */
  signIn(options?: { role?: Role; plan?: Plan; orgId?: string }): Promise<SignedInPage>;
  /** An existing person, signed in through the form in a new browser. */
  signInAs(person: Person, orgId: string): Promise<SignedInPage>;
  /** axe-core on the page as it is now: fails listing every serious or critical violation. */
  checkA11y(page: Page): Promise<void>;
  /**
   * Screenshots at desktop and at 360 px wide (test-results/screenshots/NAME.png, NAME-360.png); fails if the page
   * scrolls sideways at 360 px, or if axe-core finds a serious or critical violation there.
   */
  screenshot(page: Page, name: string): Promise<void>;
  /** Uncaught errors and failed requests the pages reported. */
  pageErrors: string[];
  close(): Promise<void>;
}

/** axe-core on the page as it is now: fails listing every serious or critical violation. */
async function checkA11y(page: Page): Promise<void> {
  // Evaluated through the DevTools protocol, so the console's Content-Security-Policy does not block it.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const results = await run(document, { resultTypes: ["violations"] });
    return results.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join("; ")})`);
  });
  if (violations.length > 0) throw new Error(`Accessibility violations on ${page.url()}:\n${violations.join("\n")}`);
}

/** A real Engram server on SQLite serving the console built for this run, and Chromium to drive it. */
export async function openConsole(options: TestServerOptions = {}): Promise<ConsoleBrowser> {
  const server = await startTestServer({ ...options, consoleDir: inject("consoleDir") });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  mkdirSync(SCREENSHOTS, { recursive: true });

  async function signInAs(person: Person, orgId: string): Promise<SignedInPage> {
    const context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP });
    contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(person.email);
    await page.getByLabel("Password").fill(person.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    return { page, context, orgId, person };
  }

  return {
    server,
    browser,
    pageErrors,
    signInAs,
    async signIn({ role = "owner", plan = "boost", orgId } = {}) {
      const org = orgId ?? (await server.newOrg({ plan }));
      return signInAs(await server.newPerson(org, role), org);
    },
    checkA11y,
    async screenshot(page, name) {
      await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
      await page.setViewportSize(NARROW);
      try {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        await page.screenshot({ path: `${SCREENSHOTS}${name}-360.png`, fullPage: true });
        if (overflow > 1) throw new Error(`${page.url()} scrolls sideways by ${overflow}px at 360px wide`);
        // What is reachable and readable changes with the width: tables start to scroll, sections wrap.
        await checkA11y(page);
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await server.stop();
    },
  };
}
