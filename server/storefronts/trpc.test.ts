import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { env } from "@/server/env";
import { ERROR_CATALOGUE, isAppError } from "@/server/errors";
import { currentTerms } from "@/server/gate/terms";
import { ProductManifest } from "@/server/products/schema";
import { createProduct } from "@/server/products/service";
import { signInThroughMail } from "@/server/sessions/testing";
import { asAdapter, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { createTrpcContextFromRequest } from "@/server/trpc/context";
import type { TrpcErrorData } from "@/server/trpc/init";
import { appRouter, createCaller } from "@/server/wiring/trpc";
import { createMerchant, createTestStorefront } from "./testing";

// The dashboard's storefront procedures (docs/ui.md, "Storefronts"), called through the server-side caller on a
// real database: the same services, rules and catalogue errors as /v1.

async function signedIn(options: Parameters<typeof createMerchant>[0] = {}) {
  const merchant = await createMerchant({ verified: true, ...options });
  const ctx = await sessionContextFor(merchant.userId);
  return { merchant, caller: createCaller({ service: ctx, sameOrigin: true }) };
}

/** The catalogue error (code and param) behind a failed call. */
async function errorOf(call: Promise<unknown>): Promise<{ code: string; param: string | null }> {
  try {
    await call;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (!isAppError(cause)) throw error;
    return { code: cause.code, param: cause.options.param ?? null };
  }
  throw new Error("expected the call to fail");
}

/** One call over HTTP through /api/trpc, as the browser makes it (the error formatter's shape). */
async function overHttp(cookie: string, path: string, body: unknown) {
  const origin = new URL(env().APP_URL).origin;
  const request = new Request(`${origin}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, origin, "accept-language": "es" },
    body: JSON.stringify(body),
  });
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createTrpcContextFromRequest(request),
  });
  return { status: response.status, body: (await response.json()) as { error: { data: TrpcErrorData } } };
}

describe("storefronts over tRPC", () => {
  it("another account's storefront is not found (404 storefront_not_found, param storefrontId), never 403", async () => {
    const owner = await createMerchant({ verified: true });
    const theirs = await createTestStorefront(owner.userKey);
    const { caller } = await signedIn();
    const calls = [
      () => caller.storefronts.get({ storefrontId: theirs.id }),
      () => caller.storefronts.editor({ storefrontId: theirs.id }),
      () => caller.storefronts.update({ storefrontId: theirs.id, name: "Mine now" }),
      () => caller.storefronts.updateSettings({ storefrontId: theirs.id, settings: { timeZone: "UTC" } }),
      () => caller.storefronts.publish({ storefrontId: theirs.id }),
      () => caller.storefronts.delete({ storefrontId: theirs.id }),
    ];
    for (const call of calls) {
      await expect(call()).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(await errorOf(call())).toEqual({ code: "storefront_not_found", param: "storefrontId" });
    }
    const ownerCaller = createCaller({ service: await sessionContextFor(owner.userId), sameOrigin: true });
    expect((await ownerCaller.storefronts.get({ storefrontId: theirs.id })).name).toBe(theirs.name);
  });

  it("invalid_request names the field with /v1's JSON path: a wrong currency, overlapping delivery ranges; nothing written", async () => {
    const { merchant, caller } = await signedIn();
    const store = await createTestStorefront(merchant.userKey);
    expect(
      await errorOf(caller.storefronts.update({ storefrontId: store.id, currency: "XYZ" as never })),
    ).toEqual({
      code: "invalid_request",
      param: "currency",
    });
    const overlapping = caller.storefronts.update({
      storefrontId: store.id,
      name: "Not saved",
      delivery: {
        enabled: true,
        type: "distance",
        ranges: [
          { fromKm: 0, toKm: 5, price: 20 },
          { fromKm: 4, toKm: 10, price: 35 },
        ],
      },
    });
    expect(await errorOf(overlapping)).toEqual({
      code: "invalid_request",
      param: "delivery.ranges[1].fromKm",
    });
    const after = await caller.storefronts.get({ storefrontId: store.id });
    expect(after).toMatchObject({
      name: store.name,
      currency: "MXN",
      delivery: null,
      updatedAt: store.updatedAt,
    });
    // whatsapp is read-only after creation, over tRPC as over /v1 (PATCH rule 4).
    expect(
      await errorOf(
        caller.storefronts.update({ storefrontId: store.id, whatsapp: "+5215512345678" as never }),
      ),
    ).toEqual({ code: "invalid_request", param: "whatsapp" });
  });

  it("optimistic concurrency: a save carrying the updatedAt loaded is refused with storefront_conflict once /v1 changed it", async () => {
    const { merchant, caller } = await signedIn();
    const store = await createTestStorefront(merchant.userKey);
    const loaded = await caller.storefronts.editor({ storefrontId: store.id });
    const saved = await caller.storefronts.update({
      storefrontId: store.id,
      expectedUpdatedAt: loaded.storefront.updatedAt,
      branding: { font: "Inter" },
    });
    expect(saved.branding?.font).toBe("Inter");
    // Someone else changes it over /v1 meanwhile.
    const { updateStorefront } = await import("./patch");
    await asAdapter(await serviceContextFor(merchant.userKey), (ctx) =>
      updateStorefront(ctx, { storefrontId: store.id, patch: { name: "Changed elsewhere" } }),
    );
    const stale = caller.storefronts.update({
      storefrontId: store.id,
      expectedUpdatedAt: saved.updatedAt,
      name: "Mine",
    });
    await expect(stale).rejects.toMatchObject({ code: "CONFLICT" });
    expect((await errorOf(stale)).code).toBe("storefront_conflict");
    expect((await caller.storefronts.get({ storefrontId: store.id })).name).toBe("Changed elsewhere");
  });

  it("list: status, product count and the plan's limits; create past the plan's limit is 402 with upgrade", async () => {
    const { merchant, caller } = await signedIn({ plan: "FREE_NEW" });
    const created = await caller.storefronts.create({ name: "Tacos Lupita", currency: "MXN" });
    const ctx = await serviceContextFor(merchant.userKey);
    for (const title of ["Pastor", "Suadero"]) {
      await createProduct(ctx, {
        storefrontId: created.storefront.id,
        product: ProductManifest.parse({ title, price: 20, category: "Tacos" }),
      });
    }
    const list = await caller.storefronts.list();
    expect(list.data).toEqual([
      expect.objectContaining({
        id: created.storefront.id,
        status: "draft",
        productCount: 2,
        publicUrl: null,
      }),
    ]);
    expect(list.usage).toMatchObject({
      plan: "FREE_NEW",
      limits: { storefronts: 1, publishable: false },
      upgradeLimits: { storefronts: 10, publishable: true },
      upgrade: { currentPlan: "FREE_NEW", requiredPlan: "PRO" },
    });
    const second = caller.storefronts.create({ name: "Otra", currency: "MXN" });
    await expect(second).rejects.toMatchObject({ code: "PAYMENT_REQUIRED" });
    expect((await errorOf(second)).code).toBe("plan_max_storefronts_reached");
  });

  it("editor: settings, what is stored as auto, and products per category including orphans", async () => {
    const { merchant, caller } = await signedIn();
    const store = await createTestStorefront(merchant.userKey, {
      biography: "auto",
      branding: { backgroundUrl: "auto" },
      blocks: "auto",
      categories: [{ name: "Pan dulce", position: 0 }],
    });
    const ctx = await serviceContextFor(merchant.userKey);
    for (const category of ["Pan dulce", "Pan dulce", "Salados"]) {
      await createProduct(ctx, {
        storefrontId: store.id,
        product: ProductManifest.parse({ title: `Concha ${category}`, price: 12, category }),
      });
    }
    const editor = await caller.storefronts.editor({ storefrontId: store.id });
    expect(editor.stored).toEqual({ isBiographyAuto: true, isBackgroundAuto: true, blocks: "auto" });
    expect(editor.categoryUsage).toEqual([
      { name: "Pan dulce", products: 2 },
      { name: "Salados", products: 1 },
    ]);
    expect(editor.productCount).toBe(3);
    expect(editor.settings).toMatchObject({ timeZone: "America/Mexico_City", isDefaultTimeZone: true });
    const settings = await caller.storefronts.updateSettings({
      storefrontId: store.id,
      settings: { timeZone: "America/Bogota" },
    });
    expect(settings).toMatchObject({ timeZone: "America/Bogota", isDefaultTimeZone: false });
  });

  it("publish on a plan that cannot publish is 402 plan_cannot_publish with upgrade; on PRO it publishes; delete then 410", async () => {
    const { merchant, caller } = await signedIn({ plan: "FREE_NEW" });
    const store = await createTestStorefront(merchant.userKey);
    const refused = caller.storefronts.publish({ storefrontId: store.id });
    await expect(refused).rejects.toMatchObject({ code: "PAYMENT_REQUIRED" });
    expect((await errorOf(refused)).code).toBe("plan_cannot_publish");

    const pro = await signedIn({ plan: "PRO" });
    const proStore = await createTestStorefront(pro.merchant.userKey);
    const published = await pro.caller.storefronts.publish({ storefrontId: proStore.id });
    expect(published.published).toBe(true);
    expect(published._links.publicUrl).toMatch(/\/s\/panaderia-dona-ana/);
    expect((await pro.caller.storefronts.unpublish({ storefrontId: proStore.id })).published).toBe(false);
    expect(await pro.caller.storefronts.delete({ storefrontId: proStore.id })).toEqual({
      id: proStore.id,
      deleted: true,
    });
    expect(await errorOf(pro.caller.storefronts.get({ storefrontId: proStore.id }))).toEqual({
      code: "storefront_deleted",
      param: "storefrontId",
    });
  });

  it("over HTTP the error carries the catalogue shape: code, param, localized message (the field's error on the page)", async () => {
    const merchant = await createMerchant({ verified: true });
    const store = await createTestStorefront(merchant.userKey);
    const session = await signInThroughMail(merchant.email);
    if (session.kind !== "signed_in") throw new Error("expected a signed-in session");
    await acceptCurrentTerms(await sessionContextFor(session.accountId), { version: currentTerms().version });
    const cookie = `marea_session=${session.session.token}`;
    const answer = await overHttp(cookie, "storefronts.update", {
      storefrontId: store.id,
      schedule: { monday: { open: "9am" } },
    });
    expect(answer.status).toBe(400);
    const error = answer.body.error.data.error;
    expect(error).toMatchObject({
      code: "invalid_request",
      type: "invalid_request",
      param: "schedule.monday.open",
    });
    expect(error?.message.startsWith(ERROR_CATALOGUE.invalid_request.messages.es)).toBe(true);
    expect(error?.requestId).toMatch(/^req_/);
  });
});
