import type { Page } from "@playwright/test";
import {
  type Api,
  checkA11y,
  expect,
  screenshot as fullPage,
  runCli,
  test,
  uniqueEmail,
} from "./support/fixtures";

// The dashboard's products and orders (docs/ui.md, "Products" and "Orders"): what a merchant does there reaches
// the same services as /v1, with the same rules, and the API sees the result.

/** Full-page screenshots from the top, so the sticky header is drawn where it belongs. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullPage(page, name);
}

type Merchant = { email: string; userKey: string; storefrontId: string };

/**
 * A merchant a developer partner bootstrapped (developer key from the CLI, POST /v1/users), with a storefront made
 * over /v1 (and `products` in its manifest), then signed in to the dashboard through the mailed code, keeping the
 * account. FREE_NEW plan: 2,000 products before the paywall.
 */
async function apiMerchant(api: Api, storefront: Record<string, unknown> = {}): Promise<Merchant> {
  const { key: developerKey } = (await runCli(["dev-key", "create", "--email", uniqueEmail("partner")])) as {
    key: string;
  };
  const email = uniqueEmail("merchant");
  const user = await api<{ userKey: string }>("POST", "/v1/users", {
    key: developerKey,
    body: { email, language: "en" },
  });
  expect(user.status).toBe(201);
  const created = await api<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
    key: user.body.userKey,
    body: { name: "Panadería Lupita", language: "es", currency: "MXN", ...storefront },
  });
  expect(created.status, JSON.stringify(created.body)).toBeGreaterThanOrEqual(200);
  return { email, userKey: user.body.userKey, storefrontId: created.body.storefront.id };
}

/** `apiMerchant`, then signed in to the dashboard through the mailed code, keeping the bootstrapped account. */
async function merchant(
  page: Page,
  api: Api,
  signIn: (page: Page, email: string, options?: { expectChoice?: boolean }) => Promise<void>,
  storefront: Record<string, unknown> = {},
): Promise<Merchant> {
  const m = await apiMerchant(api, storefront);
  await signIn(page, m.email, { expectChoice: true });
  await page.getByRole("button", { name: "Continue with this account" }).click();
  await page.waitForURL(/\/dashboard$/);
  return m;
}

test.describe("products", () => {
  test("add a product with two option groups and see it over /v1; the spec's validation on the field; inline edit", async ({
    page,
    api,
    signIn,
  }) => {
    const m = await merchant(page, api, signIn, {
      categories: [{ name: "Pan dulce", position: 1 }],
      products: [{ title: "Bolillo", price: 3, sku: "BOL-1", position: 2 }],
    });
    const productsUrl = `/dashboard/storefronts/${m.storefrontId}/products`;
    await page.goto(productsUrl);
    await expect(page.getByRole("heading", { level: 1, name: "Products · Panadería Lupita" })).toBeVisible();
    await expect(page.getByTestId("product-usage")).toHaveText("1 of 2,000 products on the FREE_NEW plan");
    await page.getByRole("link", { name: "Add product" }).click();
    await page.waitForURL(/\/products\/new$/);

    await page.getByLabel("Title").fill("Concha rellena");
    await page.getByLabel("Price", { exact: true }).fill("25");
    // Sale price not below price: the API's own rule, shown on the field, nothing sent.
    await page.getByLabel("Sale price").fill("30");
    await page.getByRole("combobox", { name: /^Category/ }).fill("Pan dulce");
    await page.getByLabel("SKU").fill("CON-7");
    await page.getByRole("textbox", { name: /^Stock/ }).fill("12");
    await page.getByLabel("Image URL").fill("https://cdn.example.com/concha.jpg");
    await page.getByRole("button", { name: "Add option group" }).click();
    await page.getByRole("button", { name: "Add option group" }).click();
    const size = page.getByRole("group", { name: "Option group 1" });
    await size.getByLabel("Group name").fill("Tamaño");
    await size.getByLabel("Required").click();
    await size.getByLabel("Minimum choices").fill("1");
    await size.getByLabel("Maximum choices").fill("1");
    await size.getByLabel("Option name").fill("Chica");
    await size.getByRole("button", { name: "Add option to group 1" }).click();
    await size.getByLabel("Option name").nth(1).fill("Grande");
    await size.getByLabel("Extra price").nth(1).fill("8");
    const filling = page.getByRole("group", { name: "Option group 2" });
    await filling.getByLabel("Group name").fill("Relleno");
    await filling.getByLabel("Several options may be chosen").click();
    // minOptions above maxOptions: refused on its field.
    await filling.getByLabel("Minimum choices").fill("3");
    await filling.getByLabel("Maximum choices").fill("2");
    await filling.getByLabel("Option name").fill("Nata");
    await filling.getByLabel("Option stock").fill("5");
    await page.getByRole("button", { name: "Create product" }).click();
    await expect(page.getByText("Fix the fields marked below; nothing was saved.")).toBeVisible();
    await expect(page.getByLabel("Sale price")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("must be below price")).toBeVisible();
    await expect(filling.getByLabel("Minimum choices")).toHaveAttribute("aria-invalid", "true");
    await expect(filling.getByText("must not be greater than maxOptions")).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "dashboard-product-editor-errors");
    const before = await api<{ data: unknown[] }>("GET", `/v1/storefronts/${m.storefrontId}/products`, {
      key: m.userKey,
    });
    expect(before.body.data).toHaveLength(1);

    await page.getByLabel("Sale price").fill("20");
    await filling.getByLabel("Minimum choices").fill("0");
    await page.getByRole("button", { name: "Create product" }).click();
    await page.waitForURL(/\/products\/prd_[0-9a-z]+\?created=1$/);
    await expect(page.getByText("Product created.")).toBeVisible();
    const productId = new URL(page.url()).pathname.split("/").at(-1) ?? "";
    const read = await api<{ product: Record<string, unknown> }>(
      "GET",
      `/v1/storefronts/${m.storefrontId}/products/${productId}`,
      { key: m.userKey },
    );
    expect(read.status).toBe(200);
    // The page was rendered before this read: an image still pending now was pending then, and the editor said so.
    if (read.body.product.imageProcessingPending)
      await expect(page.getByTestId("image-pending")).toBeVisible();
    expect(read.body.product).toMatchObject({
      title: "Concha rellena",
      price: 25,
      salePrice: 20,
      category: "Pan dulce",
      sku: "CON-7",
      stock: 12,
      imageUrl: "https://cdn.example.com/concha.jpg",
      extraProductsCategory: [
        {
          title: "Tamaño",
          obligatory: true,
          multipleOption: false,
          minOptions: 1,
          maxOptions: 1,
          extraProducts: [
            { title: "Chica", price: 0, available: true, stock: null },
            { title: "Grande", price: 8, available: true, stock: null },
          ],
        },
        {
          title: "Relleno",
          obligatory: false,
          multipleOption: true,
          minOptions: 0,
          maxOptions: 2,
          extraProducts: [{ title: "Nata", price: 0, available: true, stock: 5 }],
        },
      ],
    });
    await checkA11y(page);
    await screenshot(page, "dashboard-product-editor");

    // The table: by position (unset last), search by SKU kept in the URL, inline edit of price and stock.
    await page.goto(productsUrl);
    await expect(page.getByTestId("product-row")).toHaveCount(2);
    await expect(page.getByTestId("product-row").first()).toContainText("Bolillo");
    await page.getByLabel("Search").fill("con-7");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/q=con-7/);
    await expect(page.getByTestId("product-row")).toHaveCount(1);
    await page.reload();
    await expect(page.getByTestId("product-row")).toHaveCount(1);
    await page.getByLabel("Price of Concha rellena", { exact: true }).fill("27.5");
    await page.getByLabel("Stock of Concha rellena").fill("");
    await page.getByRole("button", { name: "Save Concha rellena" }).click();
    await expect(page.getByText("Concha rellena saved.", { exact: true })).toBeVisible();
    const changed = await api<{ product: { price: number; stock: number | null } }>(
      "GET",
      `/v1/storefronts/${m.storefrontId}/products/${productId}`,
      { key: m.userKey },
    );
    expect(changed.body.product).toMatchObject({ price: 27.5, stock: null });
    // A sale price above the new price: the server's rule against the stored price, on that row's field.
    await page.getByLabel("Sale price of Concha rellena").fill("40");
    await page.getByRole("button", { name: "Save Concha rellena" }).click();
    await expect(page.getByLabel("Sale price of Concha rellena")).toHaveAttribute("aria-invalid", "true");
    await page.goto(productsUrl);
    await checkA11y(page);
    await screenshot(page, "dashboard-products");

    // Delete with confirmation.
    await page.getByRole("button", { name: "Delete Bolillo" }).click();
    await expect(page.getByRole("alertdialog", { name: "Delete Bolillo?" })).toBeVisible();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
    await expect(page.getByText("Bolillo deleted.", { exact: true })).toBeVisible();
    await expect(page.getByTestId("product-row")).toHaveCount(1);
  });

  test("import a 30-product CSV on an account 20 short of its limit: 20 created, 10 rejected with products_over_limit", async ({
    page,
    api,
    signIn,
  }) => {
    const fill = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ title: `Relleno ${from + i}`, price: 1 }));
    const m = await merchant(page, api, signIn, { products: fill(0, 80) });
    // 1,980 products before the import: the manifest's 80 and 19 batches of 100.
    for (let batch = 0; batch < 19; batch++) {
      const answer = await api("POST", `/v1/storefronts/${m.storefrontId}/products/batch`, {
        key: m.userKey,
        body: { products: fill(80 + batch * 100, 100) },
      });
      expect(answer.status).toBe(201);
    }
    const csv = [
      "title,price,sku,category,stock,tags",
      ...Array.from(
        { length: 30 },
        (_, i) => `"Importado ${i + 1}, especial",${10 + i},IMP-${i + 1},Nuevos,${i},a|b`,
      ),
    ].join("\n");
    await page.goto(`/dashboard/storefronts/${m.storefrontId}/products/import`);
    await expect(page.getByTestId("product-usage")).toHaveText(
      "1,980 of 2,000 products on the FREE_NEW plan",
    );
    await page.getByLabel("CSV or JSON file").setInputFiles({
      name: "productos.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(csv),
    });
    await expect(page.getByText("30 rows read from productos.csv.")).toBeVisible();
    await checkA11y(page);
    await page.getByRole("button", { name: "Import 30 products" }).click();
    await expect(page.getByTestId("import-summary")).toHaveText("20 created, 10 rejected, 0 not sent.");
    await expect(page.locator('[data-testid="import-row"][data-result="created"]')).toHaveCount(20);
    const rejected = page.locator('[data-testid="import-row"][data-result="rejected"]');
    await expect(rejected).toHaveCount(10);
    await expect(rejected.first()).toContainText("21");
    await expect(rejected.first()).toContainText("Importado 21, especial");
    await expect(rejected.first()).toContainText("The plan FREE_NEW allows 2000 products.");
    await expect(rejected.first().getByRole("link", { name: "See plans" })).toHaveAttribute(
      "href",
      /\/dashboard\/billing\?plan=PRO$/,
    );
    await checkA11y(page);
    await screenshot(page, "dashboard-products-import");
    await page.goto(`/dashboard/storefronts/${m.storefrontId}/products?q=IMP-`);
    await expect(page.getByTestId("product-usage")).toHaveText(
      "2,000 of 2,000 products on the FREE_NEW plan",
    );
    await expect(page.getByTestId("product-row")).toHaveCount(20);
  });

  test("import what Excel in Spanish saves: `;`, decimal commas, a BOM, CRLF; an ambiguous price refused at its row and column", async ({
    page,
    api,
    signIn,
  }) => {
    const m = await merchant(page, api, signIn);
    const csv =
      "\uFEFFtitle;price;description;stock\r\n" +
      'Concha;12,50;"dulce; de vainilla";1.000\r\n' +
      "Bolillo;1.234;;5\r\n" +
      "Pastel de tres leches;1.234,56;;2\r\n";
    // Bolillo's 1.234 would be settled by Pastel's 1.234,56 (decimal comma): make a file where nothing settles it.
    const ambiguous = "\uFEFFtitle;price\r\nConcha;12\r\nBolillo;1.234\r\n";
    await page.goto(`/dashboard/storefronts/${m.storefrontId}/products/import`);
    const input = page.getByLabel("CSV or JSON file");
    await input.setInputFiles({ name: "ambiguo.csv", mimeType: "text/csv", buffer: Buffer.from(ambiguous) });
    await expect(page.getByText("2 rows read from ambiguo.csv. 1 row has mistakes")).toBeVisible();
    await page.getByRole("button", { name: "Import 1 product" }).click();
    await expect(page.getByTestId("import-summary")).toHaveText("1 created, 0 rejected, 1 not sent.");
    const invalid = page.locator('[data-testid="import-row"][data-result="invalid"]');
    await expect(invalid.locator("td").first()).toHaveText("3");
    await expect(invalid).toContainText("price: “1.234” could be thousands or decimals");
    await checkA11y(page);
    await screenshot(page, "dashboard-products-import-ambiguous");

    await page.goto(`/dashboard/storefronts/${m.storefrontId}/products/import`);
    await page
      .getByLabel("CSV or JSON file")
      .setInputFiles({ name: "productos.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await expect(page.getByText("3 rows read from productos.csv.")).toBeVisible();
    await page.getByRole("button", { name: "Import 3 products" }).click();
    await expect(page.getByTestId("import-summary")).toHaveText("3 created, 0 rejected, 0 not sent.");
    const listed = await api<{ data: Array<{ title: string; price: number; stock: number | null }> }>(
      "GET",
      `/v1/storefronts/${m.storefrontId}/products?limit=10`,
      { key: m.userKey },
    );
    const byTitle = Object.fromEntries(listed.body.data.map((p) => [p.title, [p.price, p.stock]]));
    expect(byTitle).toMatchObject({
      Concha: [12.5, 1000],
      Bolillo: [1234, 5],
      "Pastel de tres leches": [1234.56, 2],
    });
  });
});

test.describe("orders", () => {
  test("an order placed over /v1 appears without a reload; preparing and paid reach the receiver as order.status_updated and order.paid", async ({
    page,
    api,
    signIn,
    receiver,
    baseURL,
  }) => {
    const m = await merchant(page, api, signIn, {
      currency: "MXN",
      products: [
        {
          title: "Pastel de tres leches",
          price: 320,
          extraProductsCategory: [
            {
              title: "Tamaño",
              obligatory: true,
              multipleOption: false,
              minOptions: 1,
              maxOptions: 1,
              extraProducts: [
                { title: "Mediano", price: 0, available: true },
                { title: "Grande", price: 120, available: true },
              ],
            },
          ],
        },
      ],
    });
    // A merchant webhook endpoint at the receiver, made the way the dashboard makes it (tRPC, same origin).
    const endpoint = await page.request.post("/api/trpc/webhooks.createEndpoint", {
      headers: { origin: baseURL ?? "" },
      data: {
        endpoint: { url: `${receiver.url}/marea`, subscribedEvents: ["order.status_updated", "order.paid"] },
      },
    });
    expect(endpoint.status(), await endpoint.text()).toBe(200);
    const products = await api<{ data: Array<{ id: string }> }>(
      "GET",
      `/v1/storefronts/${m.storefrontId}/products`,
      {
        key: m.userKey,
      },
    );
    const productId = products.body.data[0]?.id ?? "";

    await page.goto("/dashboard/orders");
    await expect(page.getByRole("heading", { level: 2, name: "No orders yet" })).toBeVisible();
    await checkA11y(page);
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const placed = await api<{ order: { id: string; publicOrderId: number } }>(
      "POST",
      `/v1/storefronts/${m.storefrontId}/orders`,
      {
        key: m.userKey,
        body: {
          items: [{ productId, amount: 2, options: [{ group: 0, option: 1 }] }],
          customer: { name: "Marta Ruiz", phone: "+525512345678" },
          paymentMethod: { name: "Efectivo" },
        },
      },
    );
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const row = page.locator(`[data-testid="order-row"][data-order-id="${placed.body.order.id}"]`);
    await expect(row).toBeVisible({ timeout: 12_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    await expect(row).toContainText("Marta Ruiz");
    await expect(row).toContainText("Pending");
    await expect(row).toContainText("Unpaid");
    await expect(row).toContainText("880.00");
    await checkA11y(page);
    await screenshot(page, "dashboard-orders");

    // Filters live in the URL.
    await page.getByLabel("Payment").selectOption("paid");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/payment=paid/);
    await expect(page.getByText("No orders match these filters")).toBeVisible();
    await page.goto("/dashboard/orders?payment=pending");
    await row.getByRole("link").click();
    await page.waitForURL(new RegExp(`/dashboard/orders/${placed.body.order.id}$`));
    await expect(
      page.getByRole("heading", { level: 1, name: `Order #${placed.body.order.publicOrderId}` }),
    ).toBeVisible();
    await expect(page.getByTestId("order-item")).toContainText("Tamaño: Grande");
    await expect(page.getByTestId("order-total")).toContainText("880.00");

    await page.getByLabel("Move to").selectOption("accepted");
    await page.getByRole("button", { name: "Update status" }).click();
    await expect(page.getByTestId("order-status")).toHaveText("Accepted");
    await page.getByLabel("Move to").selectOption("preparing");
    await page.getByRole("button", { name: "Update status" }).click();
    await expect(page.getByTestId("order-status")).toHaveText("Preparing");
    await page.getByLabel("Custom status label").fill("En el horno");
    await page.getByRole("button", { name: "Set label" }).click();
    await expect(page.getByTestId("custom-status")).toHaveText("Label shown to the customer: En el horno");
    await page.getByLabel("Payment method name").fill("Transferencia");
    await page.getByRole("button", { name: "Mark as paid" }).click();
    await expect(page.getByTestId("payment-status")).toHaveText("Paid");
    await checkA11y(page);
    await screenshot(page, "dashboard-order");

    await receiver.waitFor((requests) => {
      const types = requests.map((r) => JSON.parse(r.rawBody).type as string);
      return types.includes("order.paid") && types.filter((t) => t === "order.status_updated").length >= 3;
    });
    const events = receiver.events();
    const preparing = events.find(
      (e) =>
        e.type === "order.status_updated" &&
        (e.data.newState as { orderStatus: string }).orderStatus === "preparing",
    );
    expect(preparing?.data).toMatchObject({
      orderId: placed.body.order.id,
      previousState: { orderStatus: "accepted" },
    });
    const paid = events.find((e) => e.type === "order.paid");
    expect(paid?.data).toMatchObject({
      orderId: placed.body.order.id,
      paymentMethod: { name: "Transferencia" },
    });
    const fromApi = await api<{ order: Record<string, unknown> }>(
      "GET",
      `/v1/orders/${placed.body.order.id}`,
      {
        key: m.userKey,
      },
    );
    expect(fromApi.body.order).toMatchObject({
      orderStatus: "preparing",
      paymentStatus: "paid",
      customStatus: { label: "En el horno" },
    });
  });

  test("another account's order and storefront pages are not found", async ({ page, api, signIn }) => {
    const owner = await apiMerchant(api, { products: [{ title: "Bolillo", price: 3 }] });
    const products = await api<{ data: Array<{ id: string }> }>(
      "GET",
      `/v1/storefronts/${owner.storefrontId}/products`,
      {
        key: owner.userKey,
      },
    );
    const placed = await api<{ order: { id: string } }>(
      "POST",
      `/v1/storefronts/${owner.storefrontId}/orders`,
      {
        key: owner.userKey,
        body: {
          items: [{ productId: products.body.data[0]?.id, amount: 1 }],
          customer: { name: "Ana", phone: "+525512345678" },
          paymentMethod: { name: "Efectivo" },
        },
      },
    );
    await merchant(page, api, signIn, {});
    const response = await page.goto(`/dashboard/storefronts/${owner.storefrontId}/products`);
    expect(response?.status()).toBe(404);
    const order = await page.goto(`/dashboard/orders/${placed.body.order.id}`);
    expect(order?.status()).toBe(404);
    await page.goto("/dashboard/orders");
    await expect(page.getByRole("heading", { level: 2, name: "No orders yet" })).toBeVisible();
  });
});
