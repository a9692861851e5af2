import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { checkA11y, expect, runCli, SCREENSHOTS, test, uniqueEmail } from "./support/fixtures";

// /docs (docs/ui.md, "Developer documentation"): the error reference every `doc` link points at, the API reference
// with Try it, the event catalog and the guides. Server-rendered, readable at 360 px, axe-clean, and no request
// ever leaves the app's origin.

const PAGES = [
  { path: "/docs", h1: "Developer documentation", shot: "docs-home" },
  { path: "/docs/errors", h1: "Error reference", shot: "docs-errors" },
  { path: "/docs/api", h1: "API reference", shot: "docs-api" },
  { path: "/docs/events", h1: "Event catalog", shot: "docs-events" },
  { path: "/docs/webhooks", h1: "Webhooks", shot: "docs-guide-webhooks" },
  { path: "/docs/api/guide", h1: "Marea API (/v1)", shot: "docs-guide-api" },
];

/** Blocks and records every request to another origin. */
async function onlyOwnOrigin(page: Page, baseURL: string): Promise<string[]> {
  const outside: string[] = [];
  const origin = new URL(baseURL).origin;
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("http") && new URL(url).origin !== origin) {
      outside.push(url);
      return route.abort();
    }
    return route.continue();
  });
  return outside;
}

/** The top of the page at 1280 and 360 px (the reference pages are too tall for one full-page image). */
async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 1000 });
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), animations: "disabled" });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

test.describe("developer documentation", () => {
  for (const entry of PAGES) {
    test(`${entry.path}: its title, landmarks, axe, no request outside the app's origin, nothing wider than 360 px`, async ({
      page,
      baseURL,
    }) => {
      // axe walks every element: the API reference has thousands, twice (1280 and 360 px).
      test.setTimeout(240_000);
      const outside = await onlyOwnOrigin(page, baseURL ?? "");
      const res = await page.goto(entry.path);
      expect(res?.status()).toBe(200);
      await expect(page.getByRole("heading", { level: 1, name: entry.h1, exact: true })).toBeVisible();
      await expect(page.getByRole("main")).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Documentation", exact: true })).toBeVisible();
      await checkA11y(page);
      await shoot(page, entry.shot);
      await page.setViewportSize({ width: 360, height: 800 });
      expect(await horizontalOverflow(page), "sideways scroll at 360 px").toBe(0);
      await expect(page.getByRole("navigation", { name: "Documentation", exact: true })).toBeHidden();
      await page.getByTestId("docs-menu").locator("summary").click();
      await expect(page.getByRole("navigation", { name: "Documentation menu" })).toBeVisible();
      await checkA11y(page);
      expect(outside).toEqual([]);
    });
  }

  test("the dark theme passes axe too (error reference and event catalog; same tokens everywhere)", async ({
    page,
    baseURL,
  }) => {
    await page.context().addCookies([{ name: "marea_theme", value: "dark", url: baseURL ?? "" }]);
    for (const docsPath of ["/docs/errors", "/docs/events"]) {
      await page.goto(docsPath);
      await expect(page.locator("html")).toHaveClass(/dark/);
      await checkA11y(page);
    }
    await page.goto("/docs/errors#invalid_request");
    await shoot(page, "docs-errors-dark");
  });

  test("the doc link of a real /v1 error opens the reference at its code (done when: every doc link resolves)", async ({
    page,
    api,
  }) => {
    const cases: Array<[string, string, string | undefined]> = [
      ["GET", "/v1/me", undefined],
      ["GET", "/v1/nope", undefined],
      ["GET", "/v1/me", "mk_user_not_a_key"],
    ];
    for (const [method, apiPath, key] of cases) {
      const res = await api<{ error: { code: string; doc: string } }>(method, apiPath, { key });
      expect(res.status).toBeGreaterThanOrEqual(400);
      const { code, doc } = res.body.error;
      expect(doc).toMatch(new RegExp(`/docs/errors#${code}$`));
      await page.goto(doc);
      const heading = page.locator(`[id="${code}"]`);
      await expect(heading).toHaveText(code);
      await expect(heading).toBeInViewport();
    }
    await shoot(page, "docs-errors-target");
  });

  test("Try it: a pasted key calls this server and shows the answer; without a key it says so", async ({
    page,
    baseURL,
  }) => {
    const outside = await onlyOwnOrigin(page, baseURL ?? "");
    const { key } = (await runCli(["dev-key", "create", "--email", uniqueEmail("docs")])) as { key: string };
    await page.goto("/docs/api#op-getMe");
    const operation = page.getByTestId("operation-getMe");
    await operation.getByText("Try it", { exact: true }).click();
    await operation.getByRole("button", { name: "Send request: GET" }).click();
    await expect(operation.getByText("Paste an API key above first.")).toBeVisible();

    await page.getByLabel("API key for Try it").fill(key);
    await operation.getByRole("button", { name: "Send request: GET" }).click();
    await expect(operation.getByText("HTTP 200")).toBeVisible();
    await expect(operation.getByTestId("try-it-response")).toContainText('"account"');
    await shoot(page, "docs-api-try-it");

    // A path parameter and an error answer, shown as the API sends it.
    const get = page.getByTestId("operation-getStorefront");
    await get.scrollIntoViewIfNeeded();
    await get.getByText("Try it", { exact: true }).click();
    await get.getByLabel(/storefrontId/).fill("stf_00000000000000000000000000");
    await get.getByRole("button", { name: "Send request: GET" }).click();
    await expect(get.getByText(/HTTP 40[34]/)).toBeVisible();
    await expect(get.getByTestId("try-it-response")).toContainText('"error"');
    expect(outside).toEqual([]);
    // The key was never stored.
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
  });

  test("in Spanish: the interface and the catalogue's messages follow the language; guides say they are in English", async ({
    page,
  }) => {
    await page.goto("/docs/errors");
    await page.getByTestId("language-switcher").locator("summary").click();
    await page.getByRole("button", { name: "Español" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "es");
    await expect(page.getByRole("heading", { level: 1, name: "Referencia de errores" })).toBeVisible();
    await expect(page.getByTestId("error-storefront_not_found")).toContainText(
      "No se encontró ninguna tienda con ese id.",
    );
    await checkA11y(page);
    await shoot(page, "docs-errors-es");
    await page.goto("/docs/webhooks");
    await expect(page.getByText("Esta guía está escrita en inglés.")).toBeVisible();
    await page.goto("/docs/events");
    await expect(page.getByRole("heading", { level: 1, name: "Catálogo de eventos" })).toBeVisible();
  });

  test("the home page and the dashboard's webhooks page link to the docs", async ({ page, signIn }) => {
    await page.goto("/");
    await page.getByRole("link", { name: "Developer documentation" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Developer documentation" })).toBeVisible();
    await signIn(page, uniqueEmail("docs-link"));
    await page.goto("/dashboard/webhooks");
    await page.getByRole("link", { name: "Event catalog" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Event catalog" })).toBeVisible();
  });
});
