import type { Page, Response } from "@playwright/test";
import { expect, test, uniqueEmail } from "./support/fixtures";
import { createPublishedStore } from "./support/storefront";

// docs/security.md, "Headers": every kind of page runs under its Content-Security-Policy in a real Chromium with no
// violation, and still works. (Every other spec's pages are watched too: support/fixtures.ts fails a test on any
// violation Chromium logs.)

type Watched = { violations: () => Promise<string[]> };

/** Records every `securitypolicyviolation` event of every document the page loads. */
async function watchViolations(page: Page): Promise<Watched> {
  await page.addInitScript(() => {
    const store = window as unknown as { __csp: string[] };
    store.__csp = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      store.__csp.push(
        `${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`,
      );
    });
  });
  return { violations: () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp) };
}

type Answer = Pick<Response, "headers"> | null;

function policyOf(response: Answer): string {
  return response?.headers()["content-security-policy"] ?? "";
}

function expectPagePolicy(response: Answer, kind: "nonce" | "hashes"): void {
  const headers = response?.headers() ?? {};
  const policy = policyOf(response);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toContain("object-src 'none'");
  expect(policy.match(/script-src [^;]*/)?.[0]).not.toContain("unsafe-inline");
  if (kind === "nonce") expect(policy).toMatch(/'nonce-[A-Za-z0-9+/]+=*' 'strict-dynamic'/);
  else {
    expect(policy).not.toContain("'nonce-");
    expect(policy).toMatch(/script-src 'self' ('sha256-[A-Za-z0-9+/]+=*' ){3,}/);
  }
}

test.describe("M5: Content-Security-Policy in a real browser", () => {
  test("M5: sign-in, the dashboard and the OAuth pages run under a per-request nonce with no violation, and work", async ({
    page,
    signIn,
  }) => {
    const watched = await watchViolations(page);
    const signin = await page.goto("/signin");
    expectPagePolicy(signin, "nonce");
    expect(signin?.headers()["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    await signIn(page, uniqueEmail("csp"));
    expect(await watched.violations()).toEqual([]);

    const keys = await page.goto("/dashboard/keys");
    expectPagePolicy(keys, "nonce");
    // Client components work: the dialog opens (Radix) and the form validates in the browser.
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByRole("dialog", { name: "Create an API key" })).toBeVisible();
    await page.keyboard.press("Escape");
    expect(await watched.violations()).toEqual([]);

    const apps = await page.goto("/dashboard/oauth/apps");
    expectPagePolicy(apps, "nonce");
    expect(apps?.status()).toBe(200);
    const oauthError = await page.goto("/oauth/error?error=invalid_request");
    expectPagePolicy(oauthError, "nonce");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await watched.violations()).toEqual([]);
  });

  test("M5: the cached storefront and checkout run under their scripts' hashes, the status page under a nonce with no-referrer; no violation, and an order goes through", async ({
    page,
    api,
    mail,
  }) => {
    const store = await createPublishedStore(
      api,
      mail,
      { name: "Panadería CSP", slug: "csp", language: "es", currency: "MXN", pickup: true },
      [{ title: "Concha", price: 12, category: "Pan" }],
    );
    const watched = await watchViolations(page);
    await page.goto(`/s/${store.slug}`);
    // The second view is served from the page cache, with the hashes taken when it was cached.
    const cached = await page.goto(`/s/${store.slug}`);
    expect(cached?.headers()["x-nextjs-cache"]).toBe("HIT");
    expectPagePolicy(cached, "hashes");
    await expect(page.locator("html")).toHaveAttribute("lang", "es");
    // Hydrated: the quick-add button works and the cart bar follows.
    await page.getByRole("button", { name: "Añadir Concha al carrito" }).click();
    await expect(page.getByText("Productos: 1")).toBeVisible();
    expect(await watched.violations()).toEqual([]);

    await page.getByTestId("view-cart").click();
    await expect(page.getByRole("heading", { level: 1, name: "Finalizar pedido" })).toBeVisible();
    const checkout = await page.request.get(`/s/${store.slug}/checkout`);
    expectPagePolicy(checkout, "hashes");
    await page.getByLabel("Nombre").fill("Ana López");
    await page.getByLabel("Número de teléfono").fill("55 1234 5678");
    await page.getByLabel("Recoger en tienda").check();
    await page.getByRole("button", { name: /Hacer pedido/ }).click();
    await page.waitForURL(/\/orders\/ord_[0-9a-z]+\?t=[A-Za-z0-9_-]{43}$/);
    await expect(page.getByTestId("order-status")).toHaveText("Pendiente");
    expect(await watched.violations()).toEqual([]);

    const status = await page.reload();
    expectPagePolicy(status, "nonce");
    expect(status?.headers()["referrer-policy"]).toBe("no-referrer");
    await expect(page.getByTestId("order-number")).toHaveText("Pedido n.º 1");
    expect(await watched.violations()).toEqual([]);
  });
});
