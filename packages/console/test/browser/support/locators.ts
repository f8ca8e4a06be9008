import type { Page } from "playwright-core";

/** How long a test waits for what a page shows: generous, for a busy machine; waits end as soon as it shows. */
export const LONG = { timeout: 30_000 };

/** A titled panel of a page (its h2). */
export const panel = (page: Page, title: string) => page.locator("section.panel", { has: page.getByRole("heading", { level: 2, name: title, exact: true }) });

/** A link of the section navigation. */
export const section = (page: Page, name: string) => page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name, exact: true });
