import { checkA11y, expect, runCli, SCREENSHOTS, screenshot, test, uniqueEmail } from "./support/fixtures";

test.describe("the dashboard shell", () => {
  test("landmarks, skip link and navigation at 1280 px; a menu sheet at 360 px", async ({ page, signIn }) => {
    const email = uniqueEmail("shell");
    await signIn(page, email);
    await expect(page.getByRole("banner")).toBeVisible();
    await expect(page.getByRole("main")).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "dashboard-shell");

    // The skip link is the first stop and moves focus to <main>.
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("main")).toBeFocused();

    await page.setViewportSize({ width: 360, height: 740 });
    await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeHidden();
    const menuButton = page.getByRole("button", { name: "Open menu" });
    await menuButton.click();
    const sheet = page.getByRole("dialog", { name: "Menu" });
    await expect(sheet).toBeVisible();
    await expect(sheet.getByText(email)).toBeVisible();
    await expect(sheet.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
    await expect(sheet.getByRole("button", { name: "Sign out" })).toBeVisible();
    await checkA11y(page);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-menu-open-360.png`, fullPage: false });
    await page.keyboard.press("Escape");
    await expect(sheet).toBeHidden();
    await expect(menuButton).toBeFocused();
  });

  test("an account with developer keys also sees Developers", async ({ page, signIn }) => {
    const email = uniqueEmail("partner");
    await runCli(["dev-key", "create", "--email", email]);
    await signIn(page, email);
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    await expect(nav.getByRole("link")).toHaveText([
      "Overview",
      "Storefronts",
      "Orders",
      "Webhooks",
      "API keys",
      "Account",
      "Developers",
    ]);
  });

  test("the language switcher changes every text and <html lang>, and the choice sticks", async ({
    page,
    signIn,
  }) => {
    await signIn(page, uniqueEmail("polyglot"));
    await page.getByTestId("language-switcher").locator("summary").click();
    await page.getByRole("button", { name: "Português" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "pt");
    await expect(page.getByRole("heading", { level: 1, name: "Visão geral" })).toBeVisible();
    const nav = page.getByRole("navigation", { name: "Painel" });
    await expect(nav.getByRole("link", { name: "Chaves de API" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Sair" })).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "dashboard-shell-pt");

    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Visão geral" })).toBeVisible();
    await page.getByRole("button", { name: "Sair" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Entre no Marea" })).toBeVisible();
    await expect(page.getByRole("status")).toHaveText("Você saiu da sua conta.");
  });

  test("the theme is decided on the server (no flash): the cookie puts the class on <html>", async ({
    page,
    signIn,
    request,
  }) => {
    await signIn(page, uniqueEmail("night"));
    await page.getByTestId("theme-toggle").locator("summary").click();
    await expect(page.getByRole("button", { name: "System" })).toHaveAttribute("aria-current", "true");
    await checkA11y(page);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-theme-menu-1280.png` });
    await page.getByRole("button", { name: "Dark" }).click();
    await expect(page.locator("html")).toHaveClass("dark");
    await expect(page.locator("body")).toHaveCSS("background-color", "rgb(13, 17, 23)");
    await checkA11y(page);
    await screenshot(page, "dashboard-shell-dark");

    // The HTML as it leaves the server already carries the class.
    const html = await (await request.get("/signin", { headers: { cookie: "marea_theme=dark" } })).text();
    expect(html).toMatch(/<html lang="en" class="dark"/);
    const light = await (await request.get("/signin", { headers: { cookie: "marea_theme=light" } })).text();
    expect(light).toMatch(/<html lang="en" class="light"/);
  });

  test("System follows prefers-color-scheme", async ({ browser }) => {
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, colorScheme: "dark" });
    const page = await context.newPage();
    await page.goto("/signin");
    await expect(page.locator("html")).not.toHaveClass(/dark|light/);
    await expect(page.locator("body")).toHaveCSS("background-color", "rgb(13, 17, 23)");
    await checkA11y(page);
    await screenshot(page, "signin-1-email-dark");
    await context.close();
  });
});

test.describe("the component gallery (/dev/ui)", () => {
  for (const theme of ["light", "dark"] as const) {
    test(`every primitive passes axe in the ${theme} theme`, async ({ page, context }) => {
      await context.addCookies([{ name: "marea_theme", value: theme, url: process.env.E2E_BASE_URL ?? "" }]);
      await page.goto("/dev/ui");
      await expect(page.getByRole("heading", { level: 1, name: "Interface components" })).toBeVisible();
      await checkA11y(page);
      await screenshot(page, `ui-gallery-${theme}`);
    });
  }

  test("dialogs, menus, tabs, toasts and the copy button work by keyboard and announce themselves", async ({
    page,
    context,
  }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto("/dev/ui");

    // Dialog: focus moves in, Escape closes, focus returns.
    const edit = page.getByRole("button", { name: "Edit endpoint" });
    await edit.click();
    const dialog = page.getByRole("dialog", { name: "Edit endpoint" });
    await expect(dialog).toBeVisible();
    await checkA11y(page);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(edit).toBeFocused();

    // Confirmation: an alertdialog whose first focus is Cancel.
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Delete this endpoint?" });
    await expect(confirm).toBeVisible();
    await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
    await confirm.getByRole("button", { name: "Delete" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Endpoint deleted" })).toBeVisible();

    // Dropdown menu by keyboard.
    await page.getByRole("button", { name: "Actions" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("menuitem", { name: "Rotate secret" })).toBeFocused();
    await page.keyboard.press("Escape");

    // Tabs: arrow keys move between them.
    await page.getByRole("tab", { name: "Deliveries" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "Signing secret" })).toHaveAttribute("aria-selected", "true");

    // Copy: the clipboard holds the secret and "Copied" is announced.
    await page.getByRole("button", { name: "Copy secret" }).click();
    await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^[0-9a-f]{64}$/);
    await expect(page.locator("[aria-live=polite]").filter({ hasText: "Copied" })).toHaveCount(1);

    // Select (Radix) by keyboard.
    await page.getByLabel("Event type").focus();
    await page.keyboard.press("Enter");
    await page.getByRole("option", { name: "order.paid" }).click();
    await expect(page.getByLabel("Event type")).toHaveText(/order\.paid/);
  });
});
