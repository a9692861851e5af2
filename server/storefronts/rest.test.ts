import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { keepFilesInTemporaryFolder, makePng, upload } from "@/server/files/testing";
import { call } from "@/server/testing/api";
import type { StorefrontDto } from "./schema";
import { storefronts } from "./tables";
import { createMerchant, createTestStorefront, type Merchant } from "./testing";

type ErrorBody = { error: { type: string; code: string; param: string | null; message: string } };

/** docs/api.md, "Storefronts": every field of the storefront object is a required key of the response. */
const STOREFRONT_KEYS = [
  "id",
  "name",
  "language",
  "currency",
  "businessType",
  "branding",
  "schedule",
  "delivery",
  "pickup",
  "dineIn",
  "whatsapp",
  "biography",
  "categories",
  "slug",
  "hidden",
  "published",
  "_links",
  "createdAt",
  "updatedAt",
].sort();

keepFilesInTemporaryFolder();

let merchant: Merchant;

beforeAll(async () => {
  merchant = await createMerchant({ plan: "PRO" });
});

async function post(body: unknown, key = merchant.userKey) {
  return call<{ storefront: StorefrontDto } & ErrorBody>("POST", "/v1/storefronts", { key, body });
}

async function patch(id: string, body: unknown, headers: Record<string, string> = {}) {
  return call<{ storefront: StorefrontDto } & ErrorBody>("PATCH", `/v1/storefronts/${id}`, {
    key: merchant.userKey,
    body,
    headers,
  });
}

function expectInvalid(result: { status: number; body: unknown }, param: string) {
  expect(result.status).toBe(400);
  expect((result.body as ErrorBody).error).toMatchObject({
    type: "invalid_request",
    code: "invalid_request",
    param,
  });
}

/** Frees a PRO slot: the plan allows 10 live storefronts and this file makes many. */
async function removeAfter(id: string) {
  await call("DELETE", `/v1/storefronts/${id}`, { key: merchant.userKey });
}

describe("POST /v1/storefronts", () => {
  it("answers 201 with every key of the storefront object, null where unset, unpublished and not hidden", async () => {
    const result = await post({ name: "Tienda", currency: "MXN", language: "es" });
    expect(result.status).toBe(201);
    const s = result.body.storefront;
    expect(Object.keys(s).sort()).toEqual(STOREFRONT_KEYS);
    expect(s.id).toMatch(/^stf_[0-9a-z]{26}$/);
    expect(s).toMatchObject({
      businessType: null,
      branding: null,
      schedule: null,
      delivery: null,
      pickup: null,
      dineIn: null,
      whatsapp: null,
      biography: null,
      categories: null,
      slug: null,
      hidden: false,
      published: false,
    });
    expect(Object.keys(s._links).sort()).toEqual(["editUrl", "publicUrl"]);
    expect(s._links.editUrl).toMatch(new RegExp(`/dashboard/storefronts/${s.id}$`));
    expect(s._links.publicUrl).toBeNull();
    expect(result.body).toEqual({ storefront: s, products: [] });
    await removeAfter(s.id);
  });

  it("answers branding with all four keys, schedule with all seven days and categories with both keys", async () => {
    const s = await createTestStorefront(merchant.userKey, {
      branding: { font: "Inter" },
      schedule: { monday: { open: "09:00" } },
      categories: [{ name: "Pan" }],
      delivery: { enabled: true },
    });
    expect(Object.keys(s.branding ?? {}).sort()).toEqual(["backgroundUrl", "font", "logoUrl", "theme"]);
    expect(s.branding).toEqual({ logoUrl: null, backgroundUrl: null, theme: null, font: "Inter" });
    expect(Object.keys(s.schedule ?? {})).toEqual([
      "monday",
      "tuesday",
      "wednesday",
      "thursday",
      "friday",
      "saturday",
      "sunday",
    ]);
    expect(s.schedule?.monday).toEqual({ open: "09:00", close: null, closed: null });
    expect(s.categories).toEqual([{ name: "Pan", position: null }]);
    expect(s.delivery).toEqual({ enabled: true, type: null, fixedPrice: null, ranges: null });
    await removeAfter(s.id);
  });

  it("creates the products manifest with the storefront", async () => {
    const result = await call<{ storefront: StorefrontDto; products: Array<{ id: string; title: string }> }>(
      "POST",
      "/v1/storefronts",
      {
        key: merchant.userKey,
        body: {
          name: "Con productos",
          currency: "USD",
          whatsapp: "+5215512345678",
          products: [
            { title: "Concha", price: 12 },
            { title: "Bolillo", price: 3 },
          ],
        },
      },
    );
    expect(result.status).toBe(201);
    expect(result.body.storefront.whatsapp).toBe("+5215512345678");
    expect(result.body.products.map((p) => p.title)).toEqual(["Concha", "Bolillo"]);
    expect(result.body.products[0]?.id).toMatch(/^prd_/);
    const listed = await call<{ data: unknown[] }>(
      "GET",
      `/v1/storefronts/${result.body.storefront.id}/products`,
      {
        key: merchant.userKey,
      },
    );
    expect(listed.body.data).toHaveLength(2);
    await removeAfter(result.body.storefront.id);
  });

  it("defaults language to the account's language", async () => {
    const s = await createTestStorefront(merchant.userKey, { language: undefined });
    expect(s.language).toBe("en");
    await removeAfter(s.id);
  });

  it("accepts the input variants: image {fileId}, background auto, theme preset, biography auto, blocks", async () => {
    const logo = (await upload(merchant.userKey, await makePng(64, 64), "image/png")).body as {
      file: { id: string; url: string };
    };
    const s = await createTestStorefront(merchant.userKey, {
      branding: { logoUrl: { fileId: logo.file.id }, backgroundUrl: "auto", theme: { preset: "ocean" } },
      biography: "auto",
      blocks: "auto",
    });
    // docs/api.md, "Input variants and how they are answered": {fileId} answers the file's URL, "auto" null until
    // resolved; a preset answers its three colours.
    expect(s.branding).toEqual({
      logoUrl: logo.file.url,
      backgroundUrl: null,
      theme: { primary: "#0e7490", secondary: "#ecfeff", tertiary: "#f59e0b" },
      font: null,
    });
    expect(s.biography?.title).toBe("Panadería Doña Ana");
    expect(s.biography?.description).toContain("Panadería Doña Ana");
    const other = await createTestStorefront(merchant.userKey, {
      branding: {
        logoUrl: "https://cdn.example.com/logo.png",
        backgroundUrl: { fileId: logo.file.id },
        theme: { primary: "#000", secondary: "#fff", tertiary: "#f00" },
      },
      biography: { title: "Hola", description: "Desde 1990" },
      blocks: [{ type: "hero" }, 3, "x"],
    });
    expect(other.branding).toMatchObject({
      logoUrl: "https://cdn.example.com/logo.png",
      theme: { primary: "#000", secondary: "#fff", tertiary: "#f00" },
    });
    expect(other.biography).toEqual({ title: "Hola", description: "Desde 1990" });
    await removeAfter(s.id);
    await removeAfter(other.id);
  });
});

describe('validation, each with a precise param (docs/api.md, "Storefronts")', () => {
  const base = { name: "Valid", currency: "MXN" };

  it("name is 1-100 characters", async () => {
    expectInvalid(await post({ ...base, name: "" }), "name");
    expectInvalid(await post({ ...base, name: "x".repeat(101) }), "name");
    const ok = await post({ ...base, name: "x".repeat(100) });
    expect(ok.status).toBe(201);
    await removeAfter(ok.body.storefront.id);
  });

  it("language is es, en or pt", async () => {
    expectInvalid(await post({ ...base, language: "fr" }), "language");
  });

  it("currency is one of the 155 ISO 4217 codes, exactly", async () => {
    expectInvalid(await post({ ...base, currency: "XXX" }), "currency");
    expectInvalid(await post({ ...base, currency: "mxn" }), "currency");
    expectInvalid(await post({ ...base, currency: "HRK" }), "currency");
    for (const currency of ["SLE", "ZWL", "VES", "AED"]) {
      const ok = await post({ ...base, currency });
      expect(ok.status, currency).toBe(201);
      await removeAfter(ok.body.storefront.id);
    }
  });

  it("businessType is one of the Spanish values, accents intact", async () => {
    expectInvalid(await post({ ...base, businessType: "Cafeteria" }), "businessType");
    expectInvalid(await post({ ...base, businessType: "restaurante" }), "businessType");
    expectInvalid(await post({ ...base, businessType: "Restaurant" }), "businessType");
    const ok = await post({ ...base, businessType: "Panadería y Repostería" });
    expect(ok.status).toBe(201);
    expect(ok.body.storefront.businessType).toBe("Panadería y Repostería");
    await removeAfter(ok.body.storefront.id);
  });

  it("whatsapp is E.164 at creation", async () => {
    expectInvalid(await post({ ...base, whatsapp: "5512345678" }), "whatsapp");
    expectInvalid(await post({ ...base, whatsapp: "+0512345678" }), "whatsapp");
    expectInvalid(await post({ ...base, whatsapp: "+52 55 1234 5678" }), "whatsapp");
  });

  it("schedule times are HH:MM", async () => {
    expectInvalid(await post({ ...base, schedule: { monday: { open: "9:00" } } }), "schedule.monday.open");
    expectInvalid(await post({ ...base, schedule: { friday: { close: "25:00" } } }), "schedule.friday.close");
    expectInvalid(await post({ ...base, schedule: { funday: null } }), "schedule.funday");
  });

  it("delivery ranges are non-negative and do not overlap", async () => {
    const range = (fromKm: number, toKm: number | null, price = 10) => ({ fromKm, toKm, price });
    expectInvalid(
      await post({ ...base, delivery: { enabled: true, ranges: [range(0, 5), range(3, 8)] } }),
      "delivery.ranges[1].fromKm",
    );
    expectInvalid(
      await post({ ...base, delivery: { enabled: true, ranges: [range(5, 10), range(0, 6)] } }),
      "delivery.ranges[1].fromKm",
    );
    expectInvalid(
      await post({ ...base, delivery: { enabled: true, ranges: [range(-1, 5)] } }),
      "delivery.ranges[0].fromKm",
    );
    expectInvalid(
      await post({ ...base, delivery: { enabled: true, ranges: [range(0, 5, -1)] } }),
      "delivery.ranges[0].price",
    );
    expectInvalid(
      await post({ ...base, delivery: { enabled: true, fixedPrice: -3 } }),
      "delivery.fixedPrice",
    );
    expectInvalid(await post({ ...base, delivery: { type: "fixed" } }), "delivery.enabled");
    const ok = await post({
      ...base,
      delivery: { enabled: true, type: "distance", ranges: [range(0, 5), range(5, null)] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.storefront.delivery?.ranges).toEqual([range(0, 5), range(5, null)]);
    await removeAfter(ok.body.storefront.id);
  });

  it("image URLs are http(s) only", async () => {
    expectInvalid(
      await post({ ...base, branding: { logoUrl: "ftp://example.com/a.png" } }),
      "branding.logoUrl",
    );
    expectInvalid(await post({ ...base, branding: { logoUrl: "javascript:alert(1)" } }), "branding.logoUrl");
    expectInvalid(
      await post({ ...base, branding: { backgroundUrl: "data:image/png;base64,AAAA" } }),
      "branding.backgroundUrl",
    );
  });

  it("text fields refuse HTML tags and inline handlers, and accept ordinary text with = or <", async () => {
    expectInvalid(await post({ ...base, name: "<b>Tienda</b>" }), "name");
    expectInvalid(await post({ ...base, name: 'Tienda <img src=x onerror="alert(1)">' }), "name");
    expectInvalid(
      await post({ ...base, categories: [{ name: "ok" }, { name: "<script>x</script>" }] }),
      "categories[1].name",
    );
    expectInvalid(
      await post({ ...base, biography: { title: "t", description: "javascript:alert(1)" } }),
      "biography.description",
    );
    const ok = await post({ ...base, name: "2 < 3 a=b", biography: { title: "x<y", description: "a=b" } });
    expect(ok.status).toBe(201);
    expect(ok.body.storefront.name).toBe("2 < 3 a=b");
    await removeAfter(ok.body.storefront.id);
  });

  it("an unknown field is a 400 naming the field", async () => {
    expectInvalid(await post({ ...base, colour: "red" }), "colour");
    expectInvalid(await post({ ...base, branding: { logo: "x" } }), "branding.logo");
  });

  it("the products manifest holds at most 100 items", async () => {
    const products = Array.from({ length: 101 }, (_, i) => ({ title: `p${i}`, price: 1 }));
    expectInvalid(await post({ ...base, products }), "products");
  });

  it("an invalid manifest product is named by its path", async () => {
    expectInvalid(
      await post({
        ...base,
        products: [
          { title: "a", price: 1 },
          { title: "b", price: -1 },
        ],
      }),
      "products[1].price",
    );
  });

  it("a body over 1 MiB is 413 payload_too_large", async () => {
    const result = await call<ErrorBody>("POST", "/v1/storefronts", {
      key: merchant.userKey,
      rawBody: JSON.stringify({ ...base, blocks: ["x".repeat(1024 * 1024)] }),
    });
    expect(result.status).toBe(413);
    expect(result.body.error.code).toBe("payload_too_large");
  });
});

describe("reading storefronts (GET /v1/storefronts/{storefrontId} and GET /v1/storefronts)", () => {
  it("GET returns the storefront", async () => {
    const s = await createTestStorefront(merchant.userKey);
    const result = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
    });
    expect(result.status).toBe(200);
    expect(result.body.storefront).toEqual(s);
    await removeAfter(s.id);
  });

  it("an unknown id is 404 storefront_not_found", async () => {
    const result = await call<ErrorBody>("GET", "/v1/storefronts/stf_nope", { key: merchant.userKey });
    expect(result.status).toBe(404);
    expect(result.body.error).toMatchObject({ type: "not_found", code: "storefront_not_found" });
  });

  it("another account's storefront is 404 on every operation, never 403", async () => {
    const other = await createMerchant({ plan: "PRO", verified: true });
    const s = await createTestStorefront(merchant.userKey);
    const attempts = [
      call<ErrorBody>("GET", `/v1/storefronts/${s.id}`, { key: other.userKey }),
      call<ErrorBody>("PATCH", `/v1/storefronts/${s.id}`, { key: other.userKey, body: { name: "hijacked" } }),
      call<ErrorBody>("DELETE", `/v1/storefronts/${s.id}`, { key: other.userKey }),
      call<ErrorBody>("POST", `/v1/storefronts/${s.id}/publish`, { key: other.userKey }),
      call<ErrorBody>("POST", `/v1/storefronts/${s.id}/unpublish`, { key: other.userKey }),
      call<ErrorBody>("GET", `/v1/storefronts/${s.id}/products`, { key: other.userKey }),
      call<ErrorBody>("POST", `/v1/storefronts/${s.id}/products`, {
        key: other.userKey,
        body: { title: "x", price: 1 },
      }),
      call<ErrorBody>("POST", `/v1/storefronts/${s.id}/products/batch`, {
        key: other.userKey,
        body: { products: [{ title: "x", price: 1 }] },
      }),
    ];
    for (const result of await Promise.all(attempts)) {
      expect(result.status).toBe(404);
      expect(result.body.error.code).toBe("storefront_not_found");
    }
    const list = await call<{ data: StorefrontDto[] }>("GET", "/v1/storefronts", { key: other.userKey });
    expect(list.body.data.map((x) => x.id)).not.toContain(s.id);
    const unchanged = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
    });
    expect(unchanged.body.storefront.name).toBe(s.name);
    await removeAfter(s.id);
  });

  it("lists by id with limit and cursor; the last page has nextCursor null; a garbage cursor restarts at page one", async () => {
    const lister = await createMerchant({ plan: "PRO" });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await createTestStorefront(lister.userKey, { name: `S${i}` })).id);
    const get = (query: string) =>
      call<{ data: StorefrontDto[]; nextCursor: string | null }>("GET", `/v1/storefronts${query}`, {
        key: lister.userKey,
      });
    const first = await get("?limit=4");
    expect(first.body.data.map((s) => s.id)).toEqual(ids.slice(0, 4));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await get(`?limit=4&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((s) => s.id)).toEqual(ids.slice(4, 8));
    const third = await get(`?limit=4&cursor=${second.body.nextCursor}`);
    expect(third.body.data.map((s) => s.id)).toEqual(ids.slice(8));
    expect(third.body.nextCursor).toBeNull();
    const garbage = await get("?limit=4&cursor=not-a-cursor");
    expect(garbage.status).toBe(200);
    expect(garbage.body.data.map((s) => s.id)).toEqual(ids.slice(0, 4));
    const all = await get("");
    expect(all.body.data).toHaveLength(10);
    expect(all.body.nextCursor).toBeNull();
    await call("DELETE", `/v1/storefronts/${ids[0]}`, { key: lister.userKey });
    expect((await get("")).body.data.map((s) => s.id)).toEqual(ids.slice(1));
  });

  it("limit must be 1-100", async () => {
    expectInvalid(await call("GET", "/v1/storefronts?limit=0", { key: merchant.userKey }), "limit");
    expectInvalid(await call("GET", "/v1/storefronts?limit=101", { key: merchant.userKey }), "limit");
    expectInvalid(await call("GET", "/v1/storefronts?limit=abc", { key: merchant.userKey }), "limit");
  });
});

describe("authentication and scopes", () => {
  it("no key is 401 missing_authorization", async () => {
    const result = await call<ErrorBody>("GET", "/v1/storefronts");
    expect(result.status).toBe(401);
    expect(result.body.error.code).toBe("missing_authorization");
  });

  it("a developer key lacks catalog scopes: 403 insufficient_scope", async () => {
    const developer = await createDeveloper();
    const result = await call<ErrorBody & { error: { requiredScopes: string[] } }>(
      "POST",
      "/v1/storefronts",
      {
        key: developer.key,
        body: { name: "x", currency: "MXN" },
      },
    );
    expect(result.status).toBe(403);
    expect(result.body.error).toMatchObject({
      code: "insufficient_scope",
      requiredScopes: ["catalog:write"],
    });
  });

  it("an unverified bootstrap key cannot publish: 403 insufficient_scope", async () => {
    const s = await createTestStorefront(merchant.userKey);
    const result = await call<ErrorBody>("POST", `/v1/storefronts/${s.id}/publish`, {
      key: merchant.userKey,
    });
    expect(result.status).toBe(403);
    expect(result.body.error.code).toBe("insufficient_scope");
    await removeAfter(s.id);
  });
});

describe('PATCH /v1/storefronts/{storefrontId} (docs/api.md, "PATCH rules")', () => {
  it("rule 1: nested objects are deep-merged and untouched nested keys are kept", async () => {
    const s = await createTestStorefront(merchant.userKey, {
      branding: { logoUrl: "https://cdn.example.com/l.png", font: "Inter", theme: { preset: "forest" } },
      schedule: { monday: { open: "09:00", close: "18:00" }, tuesday: { open: "10:00", close: "14:00" } },
      delivery: { enabled: true, type: "fixed", fixedPrice: 30 },
      pickup: true,
    });
    const result = await patch(s.id, {
      branding: { font: "Lora" },
      schedule: { monday: { close: "20:00" }, sunday: { closed: true } },
      delivery: { enabled: false },
    });
    expect(result.status).toBe(200);
    const u = result.body.storefront;
    expect(u.branding).toEqual({ ...s.branding, font: "Lora" });
    expect(u.schedule?.monday).toEqual({ open: "09:00", close: "20:00", closed: null });
    expect(u.schedule?.tuesday).toEqual({ open: "10:00", close: "14:00", closed: null });
    expect(u.schedule?.sunday).toEqual({ open: null, close: null, closed: true });
    expect(u.delivery).toEqual({ enabled: false, type: "fixed", fixedPrice: 30, ranges: null });
    expect(u.pickup).toBe(true);
    expect(u.name).toBe(s.name);
    expect(Date.parse(u.updatedAt ?? "")).toBeGreaterThan(Date.parse(s.updatedAt ?? ""));
    const read = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
    });
    expect(read.body.storefront).toEqual(u);
    await removeAfter(s.id);
  });

  it("omitted fields are untouched and null clears a field", async () => {
    const s = await createTestStorefront(merchant.userKey, {
      branding: { font: "Inter" },
      pickup: true,
      dineIn: false,
    });
    const result = await patch(s.id, { branding: null, dineIn: null, businessType: "Bar" });
    expect(result.body.storefront).toMatchObject({
      branding: null,
      dineIn: null,
      pickup: true,
      businessType: "Bar",
    });
    await removeAfter(s.id);
  });

  it("rule 2: categories replace the stored list, and products keep their orphan category", async () => {
    const s = await createTestStorefront(merchant.userKey, {
      categories: [
        { name: "Pan", position: 1 },
        { name: "Café", position: 2 },
      ],
      products: [{ title: "Espresso", price: 30, category: "Café" }],
    });
    const result = await patch(s.id, { categories: [{ name: "Postres" }] });
    expect(result.body.storefront.categories).toEqual([{ name: "Postres", position: null }]);
    const products = await call<{ data: Array<{ category: string }> }>(
      "GET",
      `/v1/storefronts/${s.id}/products`,
      {
        key: merchant.userKey,
      },
    );
    expect(products.body.data[0]?.category).toBe("Café");
    await removeAfter(s.id);
  });

  it("rule 2: blocks replace the stored list", async () => {
    const s = await createTestStorefront(merchant.userKey, { blocks: [{ a: 1 }, { b: 2 }] });
    expect((await patch(s.id, { blocks: [{ c: 3 }] })).status).toBe(200);
    const db = await dbReady();
    const [row] = await db
      .select({ blocks: storefronts.blocks })
      .from(storefronts)
      .where(eq(storefronts.id, s.id));
    expect(row?.blocks).toEqual([{ c: 3 }]);
    await removeAfter(s.id);
  });

  it("rule 3: products in the body is rejected", async () => {
    const s = await createTestStorefront(merchant.userKey);
    expectInvalid(await patch(s.id, { products: [{ title: "x", price: 1 }] }), "products");
    await removeAfter(s.id);
  });

  it("rule 4: whatsapp in the body (even null) is 400 invalid_request and nothing of that body is written", async () => {
    const s = await createTestStorefront(merchant.userKey, { whatsapp: "+5215512345678" });
    for (const whatsapp of [null, "+5215599999999"]) {
      const result = await patch(s.id, { name: "Changed", branding: { font: "X" }, whatsapp });
      expectInvalid(result, "whatsapp");
    }
    const read = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
    });
    expect(read.body.storefront).toEqual(s);
    await removeAfter(s.id);
  });

  it("an invalid field anywhere in the body writes nothing", async () => {
    const s = await createTestStorefront(merchant.userKey);
    expectInvalid(
      await patch(s.id, { name: "Changed", delivery: { enabled: true, fixedPrice: -1 } }),
      "delivery.fixedPrice",
    );
    expectInvalid(await patch(s.id, { name: "" }), "name");
    const read = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
    });
    expect(read.body.storefront).toEqual(s);
    await removeAfter(s.id);
  });

  it("a body over 1 MiB is 413 payload_too_large and nothing is written", async () => {
    const s = await createTestStorefront(merchant.userKey);
    const result = await call<ErrorBody>("PATCH", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
      rawBody: JSON.stringify({ name: "Big", blocks: ["x".repeat(1024 * 1024)] }),
    });
    expect(result.status).toBe(413);
    expect(result.body.error.code).toBe("payload_too_large");
    const read = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
    });
    expect(read.body.storefront.name).toBe(s.name);
    await removeAfter(s.id);
  });

  it("null for hidden stores false; a schedule day or the whole schedule set to null clears it; a day replaces a cleared day", async () => {
    const s = await createTestStorefront(merchant.userKey, {
      hidden: true,
      schedule: { monday: { open: "09:00", close: "18:00" }, friday: { open: "08:00", close: "12:00" } },
    });
    const cleared = await patch(s.id, { hidden: null, schedule: { monday: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.storefront.hidden).toBe(false);
    expect(cleared.body.storefront.schedule?.monday).toBeNull();
    expect(cleared.body.storefront.schedule?.friday).toEqual({ open: "08:00", close: "12:00", closed: null });
    const refilled = await patch(s.id, { schedule: { monday: { open: "10:00" } } });
    expect(refilled.body.storefront.schedule?.monday).toEqual({ open: "10:00", close: null, closed: null });
    const gone = await patch(s.id, { schedule: null });
    expect(gone.body.storefront.schedule).toBeNull();
    await removeAfter(s.id);
  });

  it("an unreadable If-Match never matches (409); a published storefront keeps its slug (400 slug)", async () => {
    const s = await createTestStorefront(merchant.userKey);
    const unreadable = await patch(s.id, { name: "Never" }, { "if-match": "not a date" });
    expect(unreadable.status).toBe(409);
    expect(unreadable.body.error.code).toBe("storefront_conflict");
    await removeAfter(s.id);

    const pro = await createMerchant({ plan: "PRO", verified: true });
    const live = await createTestStorefront(pro.userKey, { name: "Slug Keeper" });
    await call("POST", `/v1/storefronts/${live.id}/publish`, { key: pro.userKey });
    const result = await call<ErrorBody>("PATCH", `/v1/storefronts/${live.id}`, {
      key: pro.userKey,
      body: { slug: null, name: "Renamed" },
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ code: "invalid_request", param: "slug" });
    const read = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${live.id}`, {
      key: pro.userKey,
    });
    expect(read.body.storefront).toMatchObject({ name: "Slug Keeper", slug: "slug-keeper", published: true });
  });

  it("If-Match with a stale updatedAt is 409 storefront_conflict; the current one passes", async () => {
    const s = await createTestStorefront(merchant.userKey);
    const first = await patch(s.id, { name: "One" }, { "if-match": s.updatedAt ?? "" });
    expect(first.status).toBe(200);
    const stale = await patch(s.id, { name: "Two" }, { "if-match": s.updatedAt ?? "" });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ type: "conflict", code: "storefront_conflict" });
    const quoted = await patch(
      s.id,
      { name: "Three" },
      { "if-match": `"${first.body.storefront.updatedAt}"` },
    );
    expect(quoted.status).toBe(200);
    expect(quoted.body.storefront.name).toBe("Three");
    await removeAfter(s.id);
  });

  it("concurrent PATCHes of different nested keys all persist (no lost update)", async () => {
    const s = await createTestStorefront(merchant.userKey, { schedule: {} });
    const days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
    const results = await Promise.all(
      days.map((day) => patch(s.id, { schedule: { [day]: { open: "08:00" } } })),
    );
    expect(results.map((r) => r.status)).toEqual(days.map(() => 200));
    const read = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: merchant.userKey,
    });
    for (const day of days) {
      expect(read.body.storefront.schedule?.[day as "monday"]).toEqual({
        open: "08:00",
        close: null,
        closed: null,
      });
    }
    await removeAfter(s.id);
  });

  it("a PATCH with an Idempotency-Key is replayed, not applied twice", async () => {
    const s = await createTestStorefront(merchant.userKey);
    const headers = { "idempotency-key": `patch-${s.id}` };
    const first = await patch(s.id, { name: "Once" }, headers);
    const replay = await patch(s.id, { name: "Once" }, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    await removeAfter(s.id);
  });

  it("slug_taken when another live storefront holds the slug", async () => {
    const a = await createTestStorefront(merchant.userKey, { slug: "la-esquina" });
    const b = await createTestStorefront(merchant.userKey);
    const result = await patch(b.id, { slug: "la-esquina" });
    expect(result.status).toBe(409);
    expect(result.body.error.code).toBe("slug_taken");
    await removeAfter(a.id);
    expect((await patch(b.id, { slug: "la-esquina" })).status).toBe(200);
    await removeAfter(b.id);
  });
});

describe("DELETE /v1/storefronts/{storefrontId}", () => {
  it("answers {id, deleted: true}; afterwards every call on it is 410 storefront_deleted", async () => {
    const s = await createTestStorefront(merchant.userKey);
    const deleted = await call("DELETE", `/v1/storefronts/${s.id}`, { key: merchant.userKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: s.id, deleted: true });
    const after = await Promise.all([
      call<ErrorBody>("GET", `/v1/storefronts/${s.id}`, { key: merchant.userKey }),
      call<ErrorBody>("PATCH", `/v1/storefronts/${s.id}`, { key: merchant.userKey, body: { name: "x" } }),
      call<ErrorBody>("DELETE", `/v1/storefronts/${s.id}`, { key: merchant.userKey }),
      call<ErrorBody>("GET", `/v1/storefronts/${s.id}/products`, { key: merchant.userKey }),
      call<ErrorBody>("POST", `/v1/storefronts/${s.id}/products`, {
        key: merchant.userKey,
        body: { title: "x", price: 1 },
      }),
    ]);
    for (const result of after) {
      expect(result.status).toBe(410);
      expect(result.body.error.code).toBe("storefront_deleted");
    }
  });
});

describe('publish and unpublish (docs/api.md, "Delete, publish, unpublish")', () => {
  it("an unverified account is 403 email_not_verified", async () => {
    const unverified = await createMerchant({
      plan: "PRO",
      scopes: ["catalog:read", "catalog:write", "storefront:publish"],
    });
    const s = await createTestStorefront(unverified.userKey);
    const result = await call<ErrorBody>("POST", `/v1/storefronts/${s.id}/publish`, {
      key: unverified.userKey,
    });
    expect(result.status).toBe(403);
    expect(result.body.error.code).toBe("email_not_verified");
  });

  it("a plan that cannot publish is 402 plan_cannot_publish with upgrade", async () => {
    const free = await createMerchant({ verified: true });
    const s = await createTestStorefront(free.userKey);
    const result = await call<{ error: { code: string; type: string; upgrade: unknown } }>(
      "POST",
      `/v1/storefronts/${s.id}/publish`,
      { key: free.userKey },
    );
    expect(result.status).toBe(402);
    expect(result.body.error).toMatchObject({
      type: "plan_limit",
      code: "plan_cannot_publish",
      upgrade: {
        currentPlan: "FREE_NEW",
        requiredPlan: "PRO",
        upgradeUrl: expect.stringMatching(/\/dashboard\/billing\?plan=PRO$/),
      },
    });
    const read = await call<{ storefront: StorefrontDto }>("GET", `/v1/storefronts/${s.id}`, {
      key: free.userKey,
    });
    expect(read.body.storefront.published).toBe(false);
  });

  it("publishing assigns a unique slug from the name and a publicUrl; unpublish keeps the slug", async () => {
    const pro = await createMerchant({ plan: "PRO", verified: true });
    const other = await createMerchant({ plan: "PRO", verified: true });
    const a = await createTestStorefront(pro.userKey, { name: "Café Olé" });
    const b = await createTestStorefront(other.userKey, { name: "Cafe Ole" });
    const publishedA = await call<{ storefront: StorefrontDto }>("POST", `/v1/storefronts/${a.id}/publish`, {
      key: pro.userKey,
    });
    expect(publishedA.status).toBe(200);
    expect(publishedA.body.storefront).toMatchObject({ published: true, slug: "cafe-ole", hidden: false });
    expect(publishedA.body.storefront._links.publicUrl).toMatch(/\/s\/cafe-ole$/);
    const publishedB = await call<{ storefront: StorefrontDto }>("POST", `/v1/storefronts/${b.id}/publish`, {
      key: other.userKey,
    });
    expect(publishedB.body.storefront.slug).toBe("cafe-ole-2");
    const unpublished = await call<{ storefront: StorefrontDto }>(
      "POST",
      `/v1/storefronts/${a.id}/unpublish`,
      {
        key: pro.userKey,
      },
    );
    expect(unpublished.status).toBe(200);
    expect(unpublished.body.storefront).toMatchObject({ published: false, slug: "cafe-ole" });
    expect(unpublished.body.storefront._links.publicUrl).toBeNull();
  });
});
