import type { Page } from "@playwright/test";
import {
  type Api,
  checkA11y,
  expect,
  runCli,
  type SignInOptions,
  screenshot,
  test,
  uniqueEmail,
} from "./support/fixtures";

// The dashboard's storefronts (docs/ui.md, "Storefronts"): list, create and the editor, against /v1's answers.

type Storefront = Record<string, unknown> & { id: string; updatedAt: string };

/**
 * A merchant a developer partner bootstrapped (so the test holds its /v1 key), signed in to the dashboard through
 * the mailed code; "Continue with this account" verifies it. A new account is FREE_NEW.
 */
async function signedInMerchant(
  page: Page,
  api: Api,
  signIn: (page: Page, email: string, options?: SignInOptions) => Promise<void>,
): Promise<{ email: string; userKey: string }> {
  const { key: developerKey } = (await runCli(["dev-key", "create", "--email", uniqueEmail("partner")])) as {
    key: string;
  };
  const email = uniqueEmail("merchant");
  const user = await api<{ userKey: string }>("POST", "/v1/users", {
    key: developerKey,
    body: { email, language: "en" },
  });
  expect(user.status).toBe(201);
  await signIn(page, email, { expectChoice: true });
  await page.getByRole("button", { name: "Continue with this account" }).click();
  await page.waitForURL(/\/dashboard$/);
  return { email, userKey: user.body.userKey };
}

async function getStorefront(
  api: Api,
  key: string,
  id: string,
): Promise<{ status: number; storefront: Storefront }> {
  const answer = await api<{ storefront: Storefront }>("GET", `/v1/storefronts/${id}`, { key });
  return { status: answer.status, storefront: answer.body.storefront };
}

async function createOverApi(api: Api, key: string, body: Record<string, unknown> = {}): Promise<Storefront> {
  const created = await api<{ storefront: Storefront }>("POST", "/v1/storefronts", {
    key,
    body: { name: "Panadería Doña Ana", currency: "MXN", language: "es", ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.storefront;
}

async function openTab(page: Page, name: string): Promise<void> {
  await page.getByRole("tab", { name }).click();
  await expect(page.getByRole("tab", { name, selected: true })).toBeVisible();
}

test.describe("dashboard storefronts", () => {
  test("create a storefront, fill every section of the editor, and GET /v1/storefronts/{id} answers what was typed", async ({
    page,
    api,
    signIn,
  }) => {
    const { userKey } = await signedInMerchant(page, api, signIn);
    await page.goto("/dashboard/storefronts");
    await expect(page.getByRole("heading", { level: 1, name: "Storefronts" })).toBeVisible();
    await expect(page.getByText("No storefronts yet")).toBeVisible();
    await checkA11y(page);

    await page.getByRole("button", { name: "New storefront" }).click();
    const dialog = page.getByRole("dialog", { name: "New storefront" });
    await dialog.getByLabel("Name").fill("Panadería Doña Ana");
    await dialog.getByLabel("Currency").fill("MXN");
    await dialog.getByLabel("Language").selectOption("es");
    await dialog.getByLabel("WhatsApp number").fill("+5215512345678");
    await checkA11y(page);
    await dialog.getByRole("button", { name: "Create storefront" }).click();
    await page.waitForURL(/\/dashboard\/storefronts\/stf_[a-z0-9]+$/);
    const id = new URL(page.url()).pathname.split("/").at(-1) ?? "";
    await expect(page.getByRole("heading", { level: 1, name: "Panadería Doña Ana" })).toBeVisible();

    // General
    await page.getByLabel("Name", { exact: true }).fill("Panadería Doña Ana Centro");
    await page.getByLabel("Type of business").selectOption("Panadería y Repostería");
    await expect(page.getByLabel("WhatsApp number")).toHaveValue("+5215512345678");
    await expect(page.getByLabel("WhatsApp number")).toHaveAttribute("readonly", "");
    await checkA11y(page);

    // Branding: logo with preview, background from a URL, a preset then one colour changed, font.
    await openTab(page, "Branding");
    await page.getByLabel("Logo URL").fill("https://cdn.example.com/dona-ana/logo.png");
    await expect(page.getByRole("img", { name: "Logo preview" })).toHaveAttribute(
      "src",
      "https://cdn.example.com/dona-ana/logo.png",
    );
    await page.getByRole("radio", { name: "From a URL" }).check();
    await page.getByLabel("Background URL").fill("https://cdn.example.com/dona-ana/fondo.jpg");
    await page.getByRole("button", { name: "Forest" }).click();
    await expect(page.getByLabel("Secondary colour", { exact: true })).toHaveValue("#f0fdf4");
    await page.getByLabel("Primary colour", { exact: true }).fill("#7c2d12");
    await page.getByLabel("Font").fill("Lora");
    await checkA11y(page);

    // Hours: Monday, copied to every day, Sunday closed; the time zone.
    await openTab(page, "Hours");
    await page.getByLabel("Monday opens").fill("08:00");
    await page.getByLabel("Monday closes").fill("20:30");
    await page.getByRole("button", { name: "Copy Monday to all days" }).click();
    await expect(page.getByLabel("Friday closes")).toHaveValue("20:30");
    await page.getByLabel("Closed on Sunday").check();
    await page.getByLabel("Time zone").fill("America/Bogota");
    await checkA11y(page);

    // Delivery by distance with two ranges that touch, pickup and dine-in.
    await openTab(page, "Delivery");
    await page.getByLabel("Offer delivery").check();
    await page.getByRole("radio", { name: "By distance" }).check();
    await page.getByRole("button", { name: "Add a range" }).click();
    await page.getByLabel("Range 1: to km").fill("5");
    await page.getByLabel("Range 1: price (MXN)").fill("20");
    await page.getByRole("button", { name: "Add a range" }).click();
    await expect(page.getByLabel("Range 2: from km")).toHaveValue("5");
    await page.getByLabel("Range 2: price (MXN)").fill("35.5");
    await page.getByLabel("Pickup at the store").check();
    await page.getByLabel("Dine in").check();
    await checkA11y(page);

    // About: a biography of our own.
    await openTab(page, "About");
    await page.getByRole("radio", { name: "Write my own" }).check();
    await page.getByLabel("Title").fill("Pan de la casa");
    await page.getByLabel("Description").fill("Pan dulce y salado horneado cada mañana.");

    // Categories: three added, the last moved up from the keyboard.
    await openTab(page, "Categories");
    for (const name of ["Pan dulce", "Salados", "Bebidas"]) {
      await page.getByLabel("New category").fill(name);
      await page.getByLabel("New category").press("Enter");
    }
    await page.getByRole("button", { name: "Move Bebidas up" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("button", { name: "Move Bebidas up" })).toBeFocused();
    for (const [n, name] of ["Pan dulce", "Bebidas", "Salados"].entries())
      await expect(page.getByRole("textbox", { name: `Category ${n + 1}` })).toHaveValue(name);
    await checkA11y(page);
    await screenshot(page, "dashboard-storefront-editor-categories");

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByText("All changes saved")).toBeVisible();

    const { storefront } = await getStorefront(api, userKey, id);
    expect(storefront).toMatchObject({
      name: "Panadería Doña Ana Centro",
      language: "es",
      currency: "MXN",
      businessType: "Panadería y Repostería",
      whatsapp: "+5215512345678",
      branding: {
        logoUrl: "https://cdn.example.com/dona-ana/logo.png",
        backgroundUrl: "https://cdn.example.com/dona-ana/fondo.jpg",
        theme: { primary: "#7c2d12", secondary: "#f0fdf4", tertiary: "#ca8a04" },
        font: "Lora",
      },
      delivery: {
        enabled: true,
        type: "distance",
        ranges: [
          { fromKm: 0, toKm: 5, price: 20 },
          { fromKm: 5, toKm: null, price: 35.5 },
        ],
      },
      pickup: true,
      dineIn: true,
      biography: { title: "Pan de la casa", description: "Pan dulce y salado horneado cada mañana." },
      categories: [
        { name: "Pan dulce", position: 0 },
        { name: "Bebidas", position: 1 },
        { name: "Salados", position: 2 },
      ],
      published: false,
    });
    const week = storefront.schedule as Record<string, unknown>;
    for (const day of ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday"])
      expect(week[day]).toEqual({ open: "08:00", close: "20:30", closed: false });
    expect(week.sunday).toEqual({ open: "08:00", close: "20:30", closed: true });

    // The editor shows what was saved after a reload, and the time zone (a dashboard-only setting) kept.
    await page.reload();
    await openTab(page, "Hours");
    await expect(page.getByLabel("Time zone")).toHaveValue("America/Bogota");
    await openTab(page, "General");
    await checkA11y(page);
    await screenshot(page, "dashboard-storefront-editor");

    // Removing a category: the editor says its products keep it (none here, so no warning), and the list shows it.
    await page.goto("/dashboard/storefronts");
    const row = page.getByRole("row", { name: /Panadería Doña Ana Centro/ });
    await expect(row.getByText("Draft")).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "dashboard-storefronts-list");
  });

  test("a wrong currency and overlapping delivery ranges are shown on their fields and nothing is saved", async ({
    page,
    api,
    signIn,
  }) => {
    const { userKey } = await signedInMerchant(page, api, signIn);
    const created = await createOverApi(api, userKey, { categories: [{ name: "Pan", position: 0 }] });
    const product = await api("POST", `/v1/storefronts/${created.id}/products`, {
      key: userKey,
      body: { title: "Concha", price: 12, category: "Pan" },
    });
    expect(product.status).toBe(201);
    await page.goto(`/dashboard/storefronts/${created.id}`);
    const currency = page.getByLabel("Currency");
    await currency.fill("XYZ");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(currency).toHaveAttribute("aria-invalid", "true");
    await expect(currency).toBeFocused();
    await expect(page.locator(`#${await currency.getAttribute("id")}-error`)).toContainText("currency");
    await checkA11y(page);
    await currency.fill("MXN");

    await openTab(page, "Delivery");
    await page.getByLabel("Offer delivery").check();
    await page.getByRole("radio", { name: "By distance" }).check();
    await page.getByRole("button", { name: "Add a range" }).click();
    await page.getByLabel("Range 1: to km").fill("5");
    await page.getByLabel("Range 1: price (MXN)").fill("20");
    await page.getByRole("button", { name: "Add a range" }).click();
    await page.getByLabel("Range 2: from km").fill("4");
    await page.getByLabel("Range 2: to km").fill("10");
    await page.getByLabel("Range 2: price (MXN)").fill("30");
    await openTab(page, "General");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    // The error opens the Delivery section and lands on the range that overlaps.
    await expect(page.getByRole("tab", { name: "Delivery (has an error)", selected: true })).toBeVisible();
    const from2 = page.getByLabel("Range 2: from km");
    await expect(from2).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator(`#${await from2.getAttribute("id")}-error`)).toContainText(
      "overlaps ranges[0]",
    );
    await checkA11y(page);
    await screenshot(page, "dashboard-storefront-editor-errors");

    // Removing a category that products use: the editor says they keep it as an orphan category.
    await openTab(page, "Categories");
    await page.getByRole("button", { name: "Remove Pan" }).click();
    await expect(page.getByTestId("orphan-warning")).toContainText("“Pan” (1)");

    const after = await getStorefront(api, userKey, created.id);
    expect(after.storefront).toMatchObject({ currency: "MXN", delivery: null, updatedAt: created.updatedAt });
  });

  test("a stale save is refused (storefront_conflict) and the editor offers to reload", async ({
    page,
    api,
    signIn,
  }) => {
    const { userKey } = await signedInMerchant(page, api, signIn);
    const created = await createOverApi(api, userKey);
    await page.goto(`/dashboard/storefronts/${created.id}`);
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Panadería Doña Ana");
    // Someone changes it over /v1 meanwhile.
    const patched = await api("PATCH", `/v1/storefronts/${created.id}`, {
      key: userKey,
      body: { name: "Cambiada por la API" },
    });
    expect(patched.status).toBe(200);

    await page.getByLabel("Name", { exact: true }).fill("Mi cambio");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const conflict = page.getByTestId("editor-conflict");
    await expect(conflict).toContainText("The storefront changed since you read it");
    await checkA11y(page);
    expect((await getStorefront(api, userKey, created.id)).storefront.name).toBe("Cambiada por la API");

    await conflict.getByRole("button", { name: "Reload the storefront" }).click();
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Cambiada por la API");
    await expect(conflict).toBeHidden();
    // A save after the reload carries the new updatedAt and goes through.
    await page.getByLabel("Name", { exact: true }).fill("Mi cambio");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByText("All changes saved")).toBeVisible();
    expect((await getStorefront(api, userKey, created.id)).storefront.name).toBe("Mi cambio");
  });

  test("publish on FREE_NEW shows the upgrade prompt; on PRO it publishes and links the public page; create past the limit is 402; delete is 410 afterwards", async ({
    page,
    api,
    signIn,
  }) => {
    const { email, userKey } = await signedInMerchant(page, api, signIn);
    const created = await createOverApi(api, userKey, { name: "Tacos Lupita" });

    // FREE_NEW allows one storefront: a second is refused with the plan's limits.
    await page.goto("/dashboard/storefronts");
    await page.getByRole("button", { name: "New storefront" }).click();
    const dialog = page.getByRole("dialog", { name: "New storefront" });
    await dialog.getByLabel("Name").fill("Otra tienda");
    await dialog.getByLabel("Currency").fill("MXN");
    await dialog.getByRole("button", { name: "Create storefront" }).click();
    const createPrompt = dialog.getByTestId("upgrade-prompt");
    await expect(createPrompt).toContainText("The plan's storefront limit has been reached.");
    await expect(createPrompt).toContainText("FREE_NEW: up to 1 storefront and");
    await expect(createPrompt.getByRole("link", { name: "Upgrade to PRO" })).toHaveAttribute(
      "href",
      /\/dashboard\/billing\?plan=PRO$/,
    );
    await checkA11y(page);
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await page.goto(`/dashboard/storefronts/${created.id}`);
    await page.getByRole("button", { name: "Publish" }).click();
    const prompt = page.getByTestId("upgrade-prompt");
    await expect(prompt).toContainText("The account's plan cannot publish storefronts.");
    await expect(prompt).toContainText("FREE_NEW: up to 1 storefront and 2,000 products; cannot publish.");
    await expect(prompt).toContainText("PRO: up to 10 storefronts and 10,000 products; can publish.");
    await checkA11y(page);
    await screenshot(page, "dashboard-storefront-upgrade");
    expect((await getStorefront(api, userKey, created.id)).storefront.published).toBe(false);

    await runCli(["plan", "set", "--email", email, "--plan", "PRO"]);
    await page.getByRole("button", { name: "Publish" }).click();
    const link = page.getByRole("link", { name: /View public page \(\/s\/tacos-lupita/ });
    await expect(link).toBeVisible();
    await expect(page.getByRole("button", { name: "Unpublish" })).toBeVisible();
    const published = await getStorefront(api, userKey, created.id);
    expect(published.storefront).toMatchObject({
      published: true,
      slug: expect.stringMatching(/^tacos-lupita/),
    });
    expect((await page.request.get(`/s/${published.storefront.slug}`)).status()).toBe(200);
    // Publishing moved updatedAt; the editor's next save carries the new one.
    await page.getByLabel("Name", { exact: true }).fill("Tacos Lupita Centro");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByText("All changes saved")).toBeVisible();

    await page.getByRole("button", { name: "Delete storefront" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(/\/dashboard\/storefronts$/);
    await expect(page.getByText("No storefronts yet")).toBeVisible();
    expect((await getStorefront(api, userKey, created.id)).status).toBe(410);
    await page.goto(`/dashboard/storefronts/${created.id}`);
    await expect(page.getByRole("heading", { level: 1, name: "This storefront was deleted" })).toBeVisible();
  });
});
