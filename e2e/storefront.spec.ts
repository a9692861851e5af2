import type { Page } from "@playwright/test";
import { checkA11y, expect, screenshot, test } from "./support/fixtures";
import { createPublishedStore } from "./support/storefront";

// The public storefront (docs/ui.md, "Public storefront"; docs/api.md, "Public storefront"): what the merchant's
// customers see and use, against the real app, a real webhook receiver and PostgreSQL.

const money = (amount: number, language = "es", currency = "MXN") =>
  new Intl.NumberFormat(language, { style: "currency", currency }).format(amount);

const PIZZA = {
  title: "Pizza Margarita",
  description: "Tomate, mozzarella y albahaca.",
  price: 150,
  salePrice: 120,
  category: "Pizzas",
  position: 1,
  extraProductsCategory: [
    {
      title: "Tamaño",
      obligatory: true,
      multipleOption: false,
      minOptions: 1,
      maxOptions: 1,
      extraProducts: [
        { title: "Mediana", price: 0, available: true },
        { title: "Grande", price: 40, available: true },
      ],
    },
    {
      title: "Extras",
      obligatory: false,
      multipleOption: true,
      minOptions: 0,
      maxOptions: 2,
      extraProducts: [
        { title: "Queso extra", price: 15, available: true },
        { title: "Champiñones", price: 10, available: true },
        { title: "Jalapeños", price: 5, available: false },
      ],
    },
  ],
};

const CATALOG = [
  PIZZA,
  { title: "Agua fresca", price: 25, category: "Bebidas", position: 2, stock: 10 },
  { title: "Refresco", price: 30, category: "Bebidas", position: 3, stock: 0 },
  { title: "Producto oculto", price: 99, category: "Bebidas", hide: true },
  { title: "Flan", price: 45, category: "Postres" },
  { title: "Bolsa reutilizable", price: 10 },
];

const STORE = {
  name: "Pizzería Napoli",
  slug: "napoli",
  language: "es",
  currency: "MXN",
  businessType: "Restaurante",
  biography: { title: "Napoli", description: "Pizza al horno de leña en el centro." },
  branding: { theme: { preset: "sunset" }, font: "Georgia" },
  categories: [
    { name: "Bebidas", position: 2 },
    { name: "Pizzas", position: 1 },
  ],
  pickup: true,
  delivery: {
    enabled: true,
    type: "distance",
    ranges: [
      { fromKm: 0, toKm: 3, price: 20 },
      { fromKm: 3, toKm: 8, price: 35 },
    ],
  },
  whatsapp: "+5215512345678",
};

/** The product cards of a store page. */
function products(page: Page) {
  return page.getByRole("main").getByRole("listitem");
}

async function fillCheckout(page: Page, name: string) {
  await page.getByLabel("Nombre").fill(name);
  await page.getByLabel("Número de teléfono").fill("55 1234 5678");
}

/** The page at `url` is (soon) served from the page cache: every view after the one that rendered it. */
async function expectCacheHit(page: Page, url: string): Promise<void> {
  await expect
    .poll(async () => (await page.request.get(url)).headers()["x-nextjs-cache"], { timeout: 20_000 })
    .toBe("HIT");
}

test.describe("the public storefront", () => {
  test("browse, choose options (an obligatory one is refused when missing), check out with delivery by distance, webhook, status follows the merchant", async ({
    page,
    api,
    mail,
    receiver,
  }) => {
    const store = await createPublishedStore(api, mail, STORE, CATALOG);
    // The cached pages hydrate cleanly (React's production hydration errors are #418-#425).
    const hydrationErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && /#41[89]|#42[0-5]|hydrat/i.test(message.text())) {
        hydrationErrors.push(message.text());
      }
    });
    // The merchant's developer registers the endpoint; order events of its accounts go there.
    const endpoint = await api<{ signingSecret: string }>("POST", "/v1/webhook_endpoints", {
      key: store.developerKey,
      body: { url: receiver.url, subscribedEvents: ["order.created", "order.status_updated"] },
    });
    expect(endpoint.status).toBe(201);

    const response = await page.goto(`/s/${store.slug}`);
    expect(response?.status()).toBe(200);
    await expect(page.locator("html")).toHaveAttribute("lang", "es");
    await expect(page.getByRole("heading", { level: 1, name: "Pizzería Napoli" })).toBeVisible();
    await expect(page).toHaveTitle("Pizzería Napoli");
    // Categories in position order; a category only products name comes after them, then the uncategorized.
    const sections = page.getByRole("main").getByRole("heading", { level: 2 });
    await expect(sections).toHaveText(["Pizzas", "Bebidas", "Postres", "Más productos"]);
    const nav = page.getByRole("navigation", { name: "Categorías" });
    await expect(nav.getByRole("link")).toHaveText(["Pizzas", "Bebidas", "Postres", "Más productos"]);
    // Sale price as a discount, in the storefront's currency and language.
    const pizza = products(page).filter({ hasText: "Pizza Margarita" });
    await expect(pizza).toContainText(money(120));
    await expect(pizza.locator("s")).toContainText(money(150));
    await expect(pizza).toContainText("20% de descuento");
    // Sold out shown, hidden absent.
    await expect(products(page).filter({ hasText: "Refresco" })).toContainText("Agotado");
    await expect(page.getByText("Producto oculto")).toHaveCount(0);
    // <head>: description, Open Graph, canonical, structured data.
    const canonical = await page.locator('link[rel="canonical"]').getAttribute("href");
    expect(canonical).toMatch(new RegExp(`/s/${store.slug}$`));
    await expect(page.locator('meta[name="description"]')).toHaveAttribute(
      "content",
      "Pizza al horno de leña en el centro.",
    );
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", "Pizzería Napoli");
    const jsonLd = JSON.parse(
      (await page.locator('script[type="application/ld+json"]').textContent()) ?? "{}",
    );
    expect(jsonLd).toMatchObject({ "@type": "Store", name: "Pizzería Napoli", telephone: "+5215512345678" });
    await checkA11y(page);
    await screenshot(page, "storefront");

    // Product detail: the options, with their rules; a missing obligatory choice is refused.
    await pizza.getByRole("link", { name: "Elegir opciones de Pizza Margarita" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Pizza Margarita" })).toBeVisible();
    const productJsonLd = JSON.parse(
      (await page.locator('script[type="application/ld+json"]').textContent()) ?? "{}",
    );
    expect(productJsonLd).toMatchObject({
      "@type": "Product",
      offers: { "@type": "Offer", price: "120.00", priceCurrency: "MXN" },
    });
    await expect(page.getByLabel("Jalapeños (no disponible)")).toBeDisabled();
    await page.getByLabel("Queso extra").check();
    await page.getByRole("button", { name: /Añadir al carrito/ }).click();
    await expect(page.getByText("Elige una opción en Tamaño.")).toBeVisible();
    expect(await page.evaluate((slug) => localStorage.getItem(`marea.cart.${slug}`), store.slug)).toBeNull();
    await page.getByLabel("Grande").check();
    await page.getByLabel("Cantidad").fill("2");
    await expect(page.getByRole("button", { name: `Añadir al carrito · ${money(350)}` })).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "storefront-product");
    await page.getByRole("button", { name: /Añadir al carrito/ }).click();
    await expect(page.getByText("Pizza Margarita está en tu carrito.").first()).toBeVisible();

    // Quick add from the store page; the cart survives a reload.
    await page.goto(`/s/${store.slug}`);
    await page.getByRole("button", { name: "Añadir Agua fresca al carrito" }).click();
    await page.reload();
    await expect(page.getByText("Productos: 3")).toBeVisible();
    await page.getByTestId("view-cart").click();

    // Checkout: delivery priced by distance.
    await expect(page.getByRole("heading", { level: 1, name: "Finalizar pedido" })).toBeVisible();
    await expect(page.getByTestId("cart-line")).toHaveCount(2);
    await fillCheckout(page, "Ana López");
    await page.getByLabel("Envío a domicilio").check();
    await page.getByLabel("Distancia hasta ti (km)").fill("4.2");
    await expect(page.getByTestId("delivery-price")).toHaveText(money(35));
    await expect(page.getByTestId("order-total")).toHaveText(money(410));
    await checkA11y(page);
    await screenshot(page, "storefront-checkout");
    await page.getByRole("button", { name: `Hacer pedido · ${money(410)}` }).click();

    // Confirmation: the status page with the publicOrderId, behind its token.
    await page.waitForURL(/\/orders\/ord_[0-9a-z]+\?t=[A-Za-z0-9_-]{43}$/);
    await expect(page.getByTestId("order-number")).toHaveText("Pedido n.º 1");
    await expect(page.getByTestId("order-status")).toHaveText("Pendiente");
    await expect(page.getByTestId("status-total")).toHaveText(money(410));
    expect(await page.evaluate((slug) => localStorage.getItem(`marea.cart.${slug}`), store.slug)).toBeNull();
    const statusUrl = new URL(page.url());
    const orderId = statusUrl.pathname.split("/").at(-1) ?? "";

    // The developer's receiver gets order.created with the catalog's prices.
    await receiver.waitFor((requests) => requests.some((r) => r.rawBody.includes('"order.created"')));
    const created = receiver.events().find((event) => event.type === "order.created");
    expect(created?.data).toMatchObject({
      orderId,
      publicOrderId: 1,
      items: [
        { title: "Pizza Margarita (Grande, Queso extra)", amount: 2, price: 175 },
        { title: "Agua fresca", amount: 1, price: 25 },
      ],
      subtotalPrice: 375,
      deliveryPrice: 35,
      totalPrice: 410,
      currency: "MXN",
      customer: { name: "Ana López", phone: "+525512345678" },
      paymentMethod: { name: "Efectivo" },
    });
    const request = receiver.requests.find((r) => r.rawBody.includes('"order.created"'));
    expect(request && receiver.isSignedWith(request, endpoint.body.signingSecret)).toBe(true);

    // The merchant moves the order over /v1; the open status page follows.
    for (const orderStatus of ["accepted", "ready"]) {
      const moved = await api("PATCH", `/v1/orders/${orderId}`, {
        key: store.userKey,
        body: { orderStatus },
      });
      expect(moved.status).toBe(200);
    }
    await expect(page.getByTestId("order-status")).toHaveText("Listo", { timeout: 20_000 });
    await expect(page.locator('[aria-current="step"]')).toContainText("Listo");
    await checkA11y(page);
    await screenshot(page, "storefront-status");

    expect(hydrationErrors).toEqual([]);

    // The token is the key: a wrong one is 404.
    const wrong = await page.goto(`${statusUrl.pathname}?t=${"A".repeat(43)}`);
    expect(wrong?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "No encontramos este pedido" })).toBeVisible();
  });

  test("unpublished, hidden, deleted and unknown stores answer 404; the cached page follows at once", async ({
    page,
    api,
    mail,
  }) => {
    const store = await createPublishedStore(api, mail, { ...STORE, slug: "visible" }, [CATALOG[1] ?? {}]);
    const url = `/s/${store.slug}`;
    expect((await page.goto(url))?.status()).toBe(200);
    // Served from the cache from then on (the publish's late expiries, 1 s and 5 s after it, may still come:
    // app/s/_lib/page-cache.ts; on a busy machine the first views can straddle them).
    await expectCacheHit(page, url);

    const key = store.userKey;
    expect((await api("POST", `/v1/storefronts/${store.storefrontId}/unpublish`, { key })).status).toBe(200);
    expect((await page.goto(url))?.status()).toBe(404);
    await expect(
      page.getByRole("heading", { level: 1, name: "Esta tienda no está disponible" }),
    ).toBeVisible();
    await checkA11y(page);
    expect((await page.request.get(`${url}/p/${store.products[0]?.id}`)).status()).toBe(404);

    expect((await api("POST", `/v1/storefronts/${store.storefrontId}/publish`, { key })).status).toBe(200);
    expect((await page.goto(url))?.status()).toBe(200);
    expect(
      (await api("PATCH", `/v1/storefronts/${store.storefrontId}`, { key, body: { hidden: true } })).status,
    ).toBe(200);
    expect((await page.goto(url))?.status()).toBe(404);
    expect((await page.request.get(`${url}/checkout`)).status()).toBe(404);
    expect(
      (await api("PATCH", `/v1/storefronts/${store.storefrontId}`, { key, body: { hidden: false } })).status,
    ).toBe(200);
    expect((await page.goto(url))?.status()).toBe(200);
    expect((await api("DELETE", `/v1/storefronts/${store.storefrontId}`, { key })).status).toBe(200);
    expect((await page.goto(url))?.status()).toBe(404);
    expect((await page.request.get("/s/no-such-store-anywhere")).status()).toBe(404);
    expect((await page.request.get("/s/Not_A_Slug")).status()).toBe(404);
  });

  test("after a product PATCH the next page view shows the change (cached page, expired by the change)", async ({
    page,
    api,
    mail,
  }) => {
    const store = await createPublishedStore(api, mail, { ...STORE, slug: "cache" }, [
      { title: "Empanada", price: 30, stock: 1 },
    ]);
    const url = `/s/${store.slug}`;
    await page.goto(url);
    await expect(products(page)).toContainText(money(30));
    await expectCacheHit(page, url);

    const productId = store.products[0]?.id;
    const patched = await api("PATCH", `/v1/storefronts/${store.storefrontId}/products/${productId}`, {
      key: store.userKey,
      body: { title: "Empanada de queso", price: 32 },
    });
    expect(patched.status).toBe(200);
    await page.goto(url);
    await expect(products(page)).toContainText("Empanada de queso");
    await expect(products(page)).toContainText(money(32));

    // A new product, and the last unit taken by an order, show on the next view too.
    const added = await api("POST", `/v1/storefronts/${store.storefrontId}/products`, {
      key: store.userKey,
      body: { title: "Tamal", price: 20 },
    });
    expect(added.status).toBe(201);
    const order = await api("POST", `/v1/storefronts/${store.storefrontId}/orders`, {
      key: store.userKey,
      body: {
        items: [{ productId, amount: 1 }],
        customer: { name: "Mostrador", phone: "+525512345678" },
        paymentMethod: { name: "Efectivo" },
      },
    });
    expect(order.status).toBe(201);
    await page.goto(url);
    await expect(products(page)).toHaveCount(2);
    await expect(products(page).filter({ hasText: "Empanada de queso" })).toContainText("Agotado");
  });

  test("two checkouts race for the last unit: one is placed, the other is told it sold out", async ({
    browser,
    api,
    mail,
  }) => {
    const store = await createPublishedStore(api, mail, { ...STORE, slug: "race" }, [
      { title: "Rosca de reyes", price: 300, stock: 1 },
    ]);
    const pages = await Promise.all(
      [1, 2].map(async (n) => {
        const context = await browser.newContext({
          baseURL: process.env.E2E_BASE_URL,
          extraHTTPHeaders: { "x-forwarded-for": `198.51.100.${n}` },
        });
        const page = await context.newPage();
        await page.goto(`/s/${store.slug}`);
        await page.getByRole("button", { name: "Añadir Rosca de reyes al carrito" }).click();
        await page.goto(`/s/${store.slug}/checkout`);
        await fillCheckout(page, `Cliente ${n}`);
        await page.getByLabel("Recoger en tienda").check();
        return page;
      }),
    );
    await Promise.all(pages.map((page) => page.getByRole("button", { name: /Hacer pedido/ }).click()));
    const outcomes = await Promise.all(
      pages.map(async (page) => {
        const placed = page.waitForURL(/\/orders\/ord_/, { timeout: 15_000 }).then(() => "placed");
        const refused = page
          .getByTestId("line-problem")
          .waitFor({ timeout: 15_000 })
          .then(() => "refused");
        return Promise.race([placed, refused]);
      }),
    );
    expect([...outcomes].sort()).toEqual(["placed", "refused"]);
    const loser = pages[outcomes.indexOf("refused")];
    if (!loser) throw new Error("no refused checkout");
    await expect(loser.getByTestId("line-problem")).toHaveText('"Rosca de reyes" está agotado.');
    await expect(loser.getByTestId("cart-line")).toHaveCount(1);
    for (const page of pages) await page.context().close();
  });

  test("a price tampered in the browser is ignored: the order is placed at the catalog price; a price field is refused", async ({
    page,
    api,
    mail,
    receiver,
    baseURL,
  }) => {
    const store = await createPublishedStore(api, mail, { ...STORE, slug: "precio", delivery: null }, [
      { title: "Torta", price: 80 },
    ]);
    await api("POST", "/v1/webhook_endpoints", {
      key: store.developerKey,
      body: { url: receiver.url, subscribedEvents: ["order.created"] },
    });
    const productId = store.products[0]?.id ?? "";
    await page.goto(`/s/${store.slug}`);
    // The customer edits the stored cart: a price of 0.01 and a made-up title.
    await page.evaluate(
      ({ slug, productId }) =>
        localStorage.setItem(
          `marea.cart.${slug}`,
          JSON.stringify({
            lines: [
              {
                key: `${productId}|`,
                productId,
                title: "Torta gratis",
                options: [],
                optionTitles: [],
                amount: 2,
                unitPrice: 0.01,
              },
            ],
          }),
        ),
      { slug: store.slug, productId },
    );
    await page.goto(`/s/${store.slug}/checkout`);
    await expect(page.getByTestId("order-total")).toHaveText(money(160));
    await fillCheckout(page, "Beto");
    const sent = page.waitForRequest((request) => request.url().endsWith(`/s/${store.slug}/orders`));
    await page.getByRole("button", { name: /Hacer pedido/ }).click();
    const body = JSON.parse((await sent).postData() ?? "{}");
    expect(JSON.stringify(body)).not.toMatch(/price|0\.01|gratis/i);
    await page.waitForURL(/\/orders\/ord_/);
    await expect(page.getByTestId("status-total")).toHaveText(money(160));
    await receiver.waitFor((requests) => requests.length > 0);
    expect(receiver.events()[0]?.data).toMatchObject({
      items: [{ title: "Torta", amount: 2, price: 80 }],
      totalPrice: 160,
    });

    // A price sent by hand is refused by name, and places nothing.
    const tampered = await page.request.post(`/s/${store.slug}/orders`, {
      headers: { origin: baseURL ?? "", "accept-language": "es" },
      data: {
        items: [{ productId, amount: 1, price: 0.01 }],
        customer: { name: "Beto", phone: "+525512345678" },
        paymentMethod: { name: "Efectivo" },
        fulfillment: { type: "pickup" },
      },
    });
    expect(tampered.status()).toBe(400);
    expect((await tampered.json()).error).toMatchObject({ code: "invalid_request", param: "items[0].price" });
    const orders = await api<{ data: unknown[] }>("GET", `/v1/storefronts/${store.storefrontId}/orders`, {
      key: store.userKey,
    });
    expect(orders.body.data).toHaveLength(1);
  });

  test("a closed store says when it opens and refuses orders; too many orders from one IP get a friendly 429", async ({
    page,
    api,
    mail,
    baseURL,
  }) => {
    const closed = { open: "09:00", close: "17:00", closed: true };
    const store = await createPublishedStore(
      api,
      mail,
      {
        ...STORE,
        slug: "cerrada",
        schedule: {
          monday: closed,
          tuesday: closed,
          wednesday: closed,
          thursday: closed,
          friday: closed,
          saturday: closed,
          sunday: closed,
        },
      },
      [{ title: "Pan dulce", price: 12 }],
    );
    await page.goto(`/s/${store.slug}`);
    await expect(page.getByTestId("open-state")).toHaveText("Cerrado por ahora");
    await page.getByRole("button", { name: "Añadir Pan dulce al carrito" }).click();
    await page.getByTestId("view-cart").click();
    await expect(page.getByText("La tienda está cerrada y por ahora no recibe pedidos.")).toBeVisible();
    await expect(page.getByRole("button", { name: /Hacer pedido/ })).toBeDisabled();
    const order = {
      items: [{ productId: store.products[0]?.id, amount: 1 }],
      customer: { name: "Eva", phone: "+525512345678" },
      paymentMethod: { name: "Efectivo" },
    };
    const headers = { origin: baseURL ?? "", "accept-language": "es", "x-forwarded-for": "198.51.100.77" };
    const refused = await page.request.post(`/s/${store.slug}/orders`, { headers, data: order });
    expect(refused.status()).toBe(409);
    expect((await refused.json()).error).toMatchObject({
      code: "storefront_closed",
      message: "Esta tienda está cerrada en este momento y no está recibiendo pedidos.",
    });
    // 10 a minute per client IP (the refusals above count too).
    let last = refused;
    for (let i = 0; i < 10; i++)
      last = await page.request.post(`/s/${store.slug}/orders`, { headers, data: order });
    expect(last.status()).toBe(429);
    expect(last.headers()["retry-after"]).toMatch(/^\d+$/);
    expect((await last.json()).error.message).toBe(
      "Demasiados pedidos desde tu conexión en poco tiempo. Espera un minuto e inténtalo de nuevo.",
    );
    // Another site cannot post orders for a visitor.
    const crossSite = await page.request.post(`/s/${store.slug}/orders`, {
      headers: { ...headers, origin: "https://evil.example" },
      data: order,
    });
    expect(crossSite.status()).toBe(403);
  });

  test("without JavaScript: categories, products and a product's options are all there to browse", async ({
    browser,
    api,
    mail,
  }) => {
    const store = await createPublishedStore(api, mail, { ...STORE, slug: "sin-js" }, CATALOG);
    const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`/s/${store.slug}`);
    await expect(page.getByRole("heading", { level: 1, name: "Pizzería Napoli" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Categorías" }).getByRole("link")).toHaveCount(4);
    // Chromium parses <noscript> as text even with JavaScript off in a test, so read the served HTML.
    expect(await page.content()).toContain("Activa JavaScript para añadir productos al carrito y pedir.");
    await page.getByRole("link", { name: "Elegir opciones de Pizza Margarita" }).click();
    await expect(page.getByRole("group", { name: /Tamaño/ })).toBeVisible();
    await expect(page.getByLabel("Grande")).toBeVisible();
    await expect(page.getByLabel("Queso extra")).toBeVisible();
    await expect(page.getByRole("button", { name: /Añadir al carrito/ })).toBeDisabled();
    await context.close();
  });
});
