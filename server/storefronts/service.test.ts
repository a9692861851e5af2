import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cancelOwnAccount } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { accounts, apiKeys } from "@/server/gate/tables";
import { placePublicOrder } from "@/server/orders/place";
import { CreateOrderInput } from "@/server/orders/schema";
import { ProductManifest } from "@/server/products/schema";
import { createProduct } from "@/server/products/service";
import {
  asAdapter,
  contextWith,
  oauthContextFor,
  serviceContextFor,
  sessionContextFor,
} from "@/server/testing/context";
import { parseInput } from "@/server/validation";
import { EVERY_STOREFRONT, onStorefrontChanged, type StorefrontChange } from "./changes";
import { getStorefrontSettings, updateStorefrontSettings } from "./dashboard";
import { updateStorefront } from "./patch";
import { getPublishedStorefrontBySlug, publishStorefront, unpublishStorefront } from "./publish";
import { CreateStorefrontInput, UpdateStorefrontInput, UpdateStorefrontSettingsInput } from "./schema";
import {
  createStorefront,
  deleteStorefront,
  getStorefront,
  listStorefronts,
  loadBootstrappedUserStorefronts,
  loadStorefronts,
} from "./service";
import { createMerchant } from "./testing";

// Storefront services called directly, as every door calls them (docs/architecture.md, "Services"): the same
// rules hold for an API key, a dashboard session and an OAuth-connected app.

const input = (body: Record<string, unknown> = {}) =>
  CreateStorefrontInput.parse({ name: "Panadería Doña Ana", currency: "MXN", ...body });

describe("storefront services, whatever the door", () => {
  it.each(["api_key", "session", "oauth"] as const)(
    "%s: creates, reads, deep-merges a patch and lists, answering bare DTOs",
    async (via) => {
      const merchant = await createMerchant({ plan: "PRO", verified: true });
      const ctx =
        via === "api_key"
          ? await serviceContextFor(merchant.userKey)
          : via === "session"
            ? await sessionContextFor(merchant.userId)
            : await oauthContextFor(merchant.userKey);
      expect(ctx.actor?.via.type).toBe(via);
      const created = await createStorefront(
        ctx,
        input({ branding: { logoUrl: "https://cdn.example.com/logo.png", font: "Inter" } }),
      );
      expect(created.storefront.id).toMatch(/^stf_/);
      expect(created.products).toEqual([]);
      const id = created.storefront.id;
      expect(await getStorefront(ctx, { storefrontId: id })).toEqual(created.storefront);

      const patched = await updateStorefront(ctx, {
        storefrontId: id,
        patch: UpdateStorefrontInput.parse({ branding: { font: "Lora" }, categories: [{ name: "Pan" }] }),
      });
      // PATCH rules 1 and 2: nested objects merge, arrays replace.
      expect(patched.branding).toMatchObject({ logoUrl: "https://cdn.example.com/logo.png", font: "Lora" });
      expect(patched.categories).toEqual([{ name: "Pan", position: null }]);
      const page = await listStorefronts(ctx, { limit: 20 });
      expect(page.data.map((s) => s.id)).toEqual([id]);
      expect(page.nextCursor).toBeNull();
    },
  );

  it("another account's storefront is not found for every door, and a deleted one is gone (410)", async () => {
    const owner = await createMerchant({ plan: "PRO", verified: true });
    const stranger = await createMerchant({ plan: "PRO", verified: true });
    const ctx = await serviceContextFor(owner.userKey);
    const { storefront } = await createStorefront(ctx, input());
    for (const other of [
      await serviceContextFor(stranger.userKey),
      await sessionContextFor(stranger.userId),
    ]) {
      await expect(getStorefront(other, { storefrontId: storefront.id })).rejects.toMatchObject({
        code: "storefront_not_found",
      });
    }
    await deleteStorefront(ctx, { storefrontId: storefront.id });
    await expect(getStorefront(ctx, { storefrontId: storefront.id })).rejects.toMatchObject({
      code: "storefront_deleted",
    });
  });

  it("expectedUpdatedAt: the read one applies; a stale or unreadable one is storefront_conflict and writes nothing", async () => {
    const merchant = await createMerchant();
    const ctx = await sessionContextFor(merchant.userId);
    const { storefront } = await createStorefront(ctx, input());
    const renamed = await updateStorefront(ctx, {
      storefrontId: storefront.id,
      patch: { name: "Uno" },
      expectedUpdatedAt: storefront.updatedAt,
    });
    expect(renamed.name).toBe("Uno");
    for (const stale of [storefront.updatedAt, "yesterday"]) {
      await expect(
        updateStorefront(ctx, {
          storefrontId: storefront.id,
          patch: { name: "Dos" },
          expectedUpdatedAt: stale,
        }),
      ).rejects.toMatchObject({ code: "storefront_conflict" });
    }
    expect((await getStorefront(ctx, { storefrontId: storefront.id })).name).toBe("Uno");
  });

  it("publishing: a session of an unverified account lacks storefront:publish; a verified PRO session publishes", async () => {
    const unverified = await createMerchant({ plan: "PRO" });
    const early = await sessionContextFor(unverified.userId);
    const { storefront: draft } = await createStorefront(early, input());
    await expect(publishStorefront(early, { storefrontId: draft.id })).rejects.toMatchObject({
      code: "insufficient_scope",
      options: { requiredScopes: ["storefront:publish"] },
    });

    const verified = await createMerchant({ plan: "PRO", verified: true });
    const ctx = await sessionContextFor(verified.userId);
    const { storefront } = await createStorefront(ctx, input({ name: "Café Río" }));
    const published = await publishStorefront(ctx, { storefrontId: storefront.id });
    expect(published.published).toBe(true);
    expect(published.slug).toMatch(/^cafe-rio/);
    expect(published._links.publicUrl).toBe(`http://localhost:3000/s/${published.slug}`);
    // Publishing again is a no-op: nothing is written, so a client's If-Match stays valid.
    expect(await publishStorefront(ctx, { storefrontId: storefront.id })).toEqual(published);
  });

  it("a verified session that has not accepted the current terms can read but not write (tos_not_accepted)", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const { storefront } = await createStorefront(await serviceContextFor(merchant.userKey), input());
    const db = await dbReady();
    await db.execute(
      sql`update accounts set tos_accepted_version = '2020-01-01' where id = ${merchant.userId}`,
    );
    const ctx = await sessionContextFor(merchant.userId);
    expect((await getStorefront(ctx, { storefrontId: storefront.id })).id).toBe(storefront.id);
    const refusal = await updateStorefront(ctx, { storefrontId: storefront.id, patch: { name: "x" } }).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: "tos_not_accepted" });
    // The next action names the operation; REST renders it as a /v1 URL (server/http/envelope.ts).
    expect((refusal as { options: { nextActions: unknown[] } }).options.nextActions).toEqual([
      expect.objectContaining({ operation: "acceptTerms" }),
    ]);
  });

  it("slug_taken answers only the slug's unique index; another unique violation is not reported as one", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const ctx = await serviceContextFor(merchant.userKey);
    await createStorefront(ctx, input({ name: "A", slug: "pan-de-muerto" }));
    await expect(createStorefront(ctx, input({ name: "B", slug: "pan-de-muerto" }))).rejects.toMatchObject({
      code: "slug_taken",
      options: { param: "slug" },
    });
    // A unique index of another column on this test's own database: its violation is a bug, not a taken slug.
    const db = await dbReady();
    const name = `unique-${Date.now()}`;
    await db.execute(
      sql.raw(
        `create unique index test_only_storefront_name_uq on storefronts (name) where name like 'unique-%'`,
      ),
    );
    try {
      await createStorefront(ctx, input({ name }));
      const error = await createStorefront(ctx, input({ name })).catch((e: unknown) => e);
      expect(error).not.toMatchObject({ code: "slug_taken" });
      expect(String((error as { cause?: unknown }).cause ?? error)).toMatch(/test_only_storefront_name_uq/);
    } finally {
      await db.execute(sql.raw("drop index test_only_storefront_name_uq"));
    }
  });
});

describe("the public storefront read (no actor)", () => {
  it("a cancelled merchant's published storefront is gone for customers: 404, and no order is taken", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const ctx = await serviceContextFor(merchant.userKey);
    const { storefront } = await createStorefront(ctx, input({ name: "Cierra Pronto" }));
    const product = await createProduct(ctx, {
      storefrontId: storefront.id,
      product: ProductManifest.parse({ title: "Pan", price: 5 }),
    });
    const { slug } = await publishStorefront(ctx, { storefrontId: storefront.id });
    const visitor = await contextWith(null);
    expect((await getPublishedStorefrontBySlug(visitor, { slug: slug ?? "" })).storefront.id).toBe(
      storefront.id,
    );
    await cancelOwnAccount(ctx);
    await expect(getPublishedStorefrontBySlug(visitor, { slug: slug ?? "" })).rejects.toMatchObject({
      code: "storefront_not_found",
    });
    await expect(
      placePublicOrder(visitor, {
        slug: slug ?? "",
        clientIp: "198.51.100.7",
        order: CreateOrderInput.parse({
          items: [{ productId: product.id, amount: 1 }],
          customer: { name: "Ana", phone: "+5215512345678" },
          paymentMethod: { name: "Efectivo" },
        }),
      }),
    ).rejects.toMatchObject({ code: "storefront_not_found" });
  });

  it("answers a published, visible storefront with its visible products in position order; anything else is 404", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const ctx = await serviceContextFor(merchant.userKey);
    const { storefront } = await createStorefront(ctx, input({ name: "Tacos Públicos" }));
    for (const [title, position, hide] of [
      ["Tercero", 3, false],
      ["Oculto", 1, true],
      ["Primero", 1, false],
      ["Sin posición", null, false],
    ] as const) {
      await asAdapter(ctx, (c) =>
        createProduct(c, {
          storefrontId: storefront.id,
          product: ProductManifest.parse({ title, price: 10, position, hide }),
        }),
      );
    }
    const visitor = await contextWith(null);
    // Not published yet: a customer cannot tell it exists.
    await expect(getPublishedStorefrontBySlug(visitor, { slug: "tacos-publicos" })).rejects.toMatchObject({
      code: "storefront_not_found",
    });
    const published = await publishStorefront(ctx, { storefrontId: storefront.id });
    const page = await getPublishedStorefrontBySlug(visitor, { slug: published.slug ?? "" });
    expect(page.storefront.id).toBe(storefront.id);
    expect(page.products.map((p) => p.title)).toEqual(["Primero", "Tercero", "Sin posición"]);
    expect(page.settings).toEqual({ timeZone: "America/Mexico_City", paymentMethods: ["Cash"] });

    await updateStorefront(ctx, { storefrontId: storefront.id, patch: { hidden: true } });
    await expect(getPublishedStorefrontBySlug(visitor, { slug: published.slug ?? "" })).rejects.toMatchObject(
      {
        code: "storefront_not_found",
      },
    );
    await updateStorefront(ctx, { storefrontId: storefront.id, patch: { hidden: false } });
    await deleteStorefront(ctx, { storefrontId: storefront.id });
    await expect(getPublishedStorefrontBySlug(visitor, { slug: published.slug ?? "" })).rejects.toMatchObject(
      {
        code: "storefront_not_found",
      },
    );
  });
});

// docs/api.md, "Storefront settings": the time zone and payment methods live outside the /v1 Storefront object,
// and only the dashboard's door edits them.
describe("storefront settings", () => {
  it("the time zone defaults from the currency, is set by its IANA name (canonical spelling), null goes back", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const session = await sessionContextFor(merchant.userId);
    const mexican = await createStorefront(session, input({ currency: "MXN" }));
    const american = await createStorefront(session, input({ currency: "USD" }));
    expect(await getStorefrontSettings(session, { storefrontId: american.storefront.id })).toEqual({
      storefrontId: american.storefront.id,
      timeZone: "UTC",
      isDefaultTimeZone: true,
      // The storefront's language is the account's (en here): cash in that language.
      paymentMethods: ["Cash"],
      isDefaultPaymentMethods: true,
    });
    const storefrontId = mexican.storefront.id;
    expect((await getStorefrontSettings(session, { storefrontId })).timeZone).toBe("America/Mexico_City");
    const set = await updateStorefrontSettings(session, {
      storefrontId,
      settings: parseInput(UpdateStorefrontSettingsInput, { timeZone: "america/tijuana" }, "en"),
    });
    expect(set).toMatchObject({ timeZone: "America/Tijuana", isDefaultTimeZone: false });
    // The /v1 Storefront object keeps exactly its keys.
    const storefront = await getStorefront(session, { storefrontId });
    expect(Object.keys(storefront)).not.toContain("timeZone");
    expect(storefront).toEqual({ ...mexican.storefront, updatedAt: storefront.updatedAt });
    const back = await updateStorefrontSettings(session, { storefrontId, settings: { timeZone: null } });
    expect(back).toMatchObject({ timeZone: "America/Mexico_City", isDefaultTimeZone: true });
  });

  it("an unknown zone, a repeated payment method or an unknown field is 400 with its param", () => {
    const refusal = (value: unknown) => {
      try {
        parseInput(UpdateStorefrontSettingsInput, value, "en");
        return null;
      } catch (error) {
        return (error as { options: { param: string } }).options.param;
      }
    };
    expect(refusal({ timeZone: "Mars/Olympus" })).toBe("timeZone");
    expect(refusal({ timeZone: "UTC" })).toBeNull();
    expect(refusal({ paymentMethods: ["Tarjeta", "tarjeta"] })).toBe("paymentMethods");
    expect(refusal({ paymentMethods: [] })).toBe("paymentMethods");
    expect(refusal({ currency: "MXN" })).toBe("currency");
  });

  it("only a dashboard session may read or change them; another account's storefront is not found", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const created = await createStorefront(await serviceContextFor(merchant.userKey), input());
    const storefrontId = created.storefront.id;
    for (const ctx of [await serviceContextFor(merchant.userKey), await oauthContextFor(merchant.userKey)]) {
      await expect(getStorefrontSettings(ctx, { storefrontId })).rejects.toMatchObject({
        code: "insufficient_scope",
      });
      await expect(
        updateStorefrontSettings(ctx, { storefrontId, settings: { timeZone: "UTC" } }),
      ).rejects.toMatchObject({ code: "insufficient_scope" });
    }
    const stranger = await createMerchant({ plan: "PRO", verified: true });
    await expect(
      updateStorefrontSettings(await sessionContextFor(stranger.userId), {
        storefrontId,
        settings: { timeZone: "UTC" },
      }),
    ).rejects.toMatchObject({ code: "storefront_not_found" });
  });
});

// docs/ui.md, "Public storefront": every change the public page shows is announced after its commit.
describe("storefront change announcements", () => {
  it("update, settings, publish, unpublish, delete and product changes announce the storefront (and its slug)", async () => {
    const changes: StorefrontChange[] = [];
    const stop = onStorefrontChanged((change) => {
      if (change !== EVERY_STOREFRONT) changes.push(change);
    });
    try {
      const merchant = await createMerchant({ plan: "PRO", verified: true });
      const ctx = await serviceContextFor(merchant.userKey);
      const created = await asAdapter(ctx, (c) =>
        createStorefront(c, input({ slug: `anuncio-${Date.now()}` })),
      );
      const storefrontId = created.storefront.id;
      const slug = created.storefront.slug;
      const mine = () => changes.filter((change) => change.storefrontId === storefrontId);
      const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

      // A failed write announces nothing; work announces only once the adapter ran its after-commit tasks.
      const pending = await serviceContextFor(merchant.userKey);
      await updateStorefront(pending, { storefrontId, patch: { name: "Nuevo nombre" } });
      await settle();
      expect(mine()).toEqual([]);
      pending.runAfterCommit();
      await settle();
      expect(mine()).toEqual([{ storefrontId, slug }]);

      await asAdapter(ctx, (c) => publishStorefront(c, { storefrontId }));
      await asAdapter(await sessionContextFor(merchant.userId), (c) =>
        updateStorefrontSettings(c, { storefrontId, settings: { timeZone: "UTC" } }),
      );
      const product = await asAdapter(ctx, (c) =>
        createProduct(c, { storefrontId, product: ProductManifest.parse({ title: "Pan", price: 10 }) }),
      );
      await asAdapter(ctx, (c) => unpublishStorefront(c, { storefrontId }));
      await asAdapter(ctx, (c) => deleteStorefront(c, { storefrontId }));
      await settle();
      expect(mine()).toEqual([
        { storefrontId, slug },
        { storefrontId, slug },
        { storefrontId, slug },
        { storefrontId },
        { storefrontId, slug },
        { storefrontId, slug },
      ]);
      expect(product.id).toMatch(/^prd_/);
    } finally {
      stop();
    }
  });
});

describe("storefront batch reads (the GraphQL loaders)", () => {
  it("loadStorefronts answers many ids in the order asked: the storefront, 404 or 410 for each", async () => {
    const owner = await createMerchant({ plan: "PRO", verified: true });
    const stranger = await createMerchant({ plan: "PRO", verified: true });
    const ctx = await serviceContextFor(owner.userKey);
    const a = (await createStorefront(ctx, input({ name: "A" }))).storefront;
    const b = (await createStorefront(ctx, input({ name: "B" }))).storefront;
    const gone = (await createStorefront(ctx, input({ name: "Gone" }))).storefront;
    await deleteStorefront(ctx, { storefrontId: gone.id });
    const theirs = (await createStorefront(await serviceContextFor(stranger.userKey), input())).storefront;

    const loaded = await loadStorefronts(ctx, { storefrontIds: [b.id, theirs.id, gone.id, a.id, "stf_x"] });
    expect(loaded[0]).toEqual(await getStorefront(ctx, { storefrontId: b.id }));
    expect(loaded[1]).toMatchObject({ code: "storefront_not_found", options: { param: "storefrontId" } });
    expect(loaded[2]).toMatchObject({ code: "storefront_deleted" });
    expect(loaded[3]).toEqual(await getStorefront(ctx, { storefrontId: a.id }));
    expect(loaded[4]).toMatchObject({ code: "storefront_not_found" });
    expect(await loadStorefronts(ctx, { storefrontIds: [] })).toEqual([]);
  });

  it("loadBootstrappedUserStorefronts: a developer reads the live storefronts of the accounts it bootstrapped, one page each", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const mine = await bootstrapUser(developer.key);
    const theirs = await bootstrapUser(other.key);
    const db = await dbReady();
    await db
      .update(accounts)
      .set({ plan: "PRO" })
      .where(inArray(accounts.id, [mine.userId, theirs.userId]));
    await db.update(apiKeys).set({ rpm: 100_000 }).where(eq(apiKeys.accountId, mine.userId));
    const merchantCtx = await serviceContextFor(mine.userKey);
    const made = [];
    for (const name of ["Uno", "Dos", "Tres"])
      made.push((await createStorefront(merchantCtx, input({ name }))).storefront);
    await deleteStorefront(merchantCtx, { storefrontId: made[1]?.id ?? "" });
    await createStorefront(await serviceContextFor(theirs.userKey), input());

    const ctx = await serviceContextFor(developer.key);
    const [page, strangers] = await loadBootstrappedUserStorefronts(ctx, {
      userIds: [mine.userId, theirs.userId],
      limit: 1,
    });
    expect(page?.data.map((s) => s.id)).toEqual([made[0]?.id]);
    expect(page?.nextCursor).not.toBeNull();
    expect(strangers).toEqual({ data: [], nextCursor: null });
    const [next] = await loadBootstrappedUserStorefronts(ctx, {
      userIds: [mine.userId],
      limit: 1,
      cursor: page?.nextCursor ?? undefined,
    });
    // The deleted storefront is left out.
    expect(next).toEqual({
      data: [await getStorefront(merchantCtx, { storefrontId: made[2]?.id ?? "" })],
      nextCursor: null,
    });

    await expect(
      loadBootstrappedUserStorefronts(merchantCtx, { userIds: [mine.userId], limit: 20 }),
    ).rejects.toMatchObject({ code: "insufficient_scope", options: { requiredScopes: ["developer:read"] } });
  });
});
