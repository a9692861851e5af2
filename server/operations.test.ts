import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccountKey, listAccountKeys, revokeAccountKey } from "@/server/accounts/account-keys";
import { getAccount, setAccountLanguage, setPartnerAccess } from "@/server/accounts/account-page";
import {
  acceptCurrentTerms,
  cancelOwnAccount,
  revokeDeveloperKeyAndCascade,
} from "@/server/accounts/cancellation";
import { createDeveloperKey, setPlan } from "@/server/accounts/operator";
import { bootstrapUser, issueUserKey, listBootstrappedUsers } from "@/server/accounts/partners";
import { getMe } from "@/server/accounts/service";
import { bootstrapUser as bootstrapUserWithKey, createDeveloper } from "@/server/accounts/testing";
import { resendVerification, verifyEmail } from "@/server/accounts/verification";
import type { Actor, ServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { type AppError, ErrorEnvelope } from "@/server/errors";
import { getEvent, listEvents } from "@/server/events/service";
import { createFile, getFile, importImage } from "@/server/files/service";
import { authorizeActor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import { apiKeys } from "@/server/gate/tables";
import {
  closeListenSession,
  createListenSession,
  listListenSessions,
  openListenStream,
  triggerListenEvent,
} from "@/server/listen/service";
import { decideConsent, getConsentRequest } from "@/server/oauth/authorization";
import { disconnectApp, listConnectedApps } from "@/server/oauth/grants";
import type { OperationDefinition } from "@/server/operations";
import { payOrder, updateOrderStatus } from "@/server/orders/lifecycle";
import { createOrder } from "@/server/orders/place";
import { getOrder, listOrders } from "@/server/orders/service";
import { getDeliveryOverview, getMerchantOverview } from "@/server/overview/service";
import {
  createProduct,
  createProducts,
  deleteProduct,
  getProduct,
  listProducts,
  updateProduct,
} from "@/server/products/service";
import { getStorefrontSettings, updateStorefrontSettings } from "@/server/storefronts/dashboard";
import { updateStorefront } from "@/server/storefronts/patch";
import { publishStorefront, unpublishStorefront } from "@/server/storefronts/publish";
import {
  createStorefront,
  deleteStorefront,
  getStorefront,
  listStorefronts,
  loadBootstrappedUserStorefronts,
} from "@/server/storefronts/service";
import { call } from "@/server/testing/api";
import { contextWith } from "@/server/testing/context";
import { listDeliveries, recoverDeliveries, resendDelivery } from "@/server/webhooks/delivery-log";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSigningSecret,
  sendTestEvent,
  updateEndpoint,
} from "@/server/webhooks/endpoints";
import { OPERATIONS, type OperationName } from "@/server/wiring/operations";
import { API_ROUTES } from "@/server/wiring/rest";

// docs/architecture.md, "Operations": every operation is authorized by the one table, whatever the door. For each
// operation that needs a scope, a caller without it is refused with 403 insufficient_scope, requiredScopes
// and heldScopes, by the service itself and by every adapter that exists (REST today).

/** Each operation's service function, called with an input that never gets read: authorization comes first. */
const ANY = {} as never;
/** The same for the developer-endpoint operations, naming their scope: a user key's default is merchant. */
const DEVELOPER = { scope: "developer" } as never;
const SERVICE_CALLS: Record<OperationName, (ctx: ServiceContext) => Promise<unknown>> = {
  bootstrapUser: (ctx) => bootstrapUser(ctx, ANY),
  issueUserKey: (ctx) => issueUserKey(ctx, ANY),
  listBootstrappedUsers: (ctx) => listBootstrappedUsers(ctx, ANY),
  getMe: (ctx) => getMe(ctx),
  verifyEmail: (ctx) => verifyEmail(ctx, ANY),
  resendVerification: (ctx) => resendVerification(ctx),
  cancelAccount: (ctx) => cancelOwnAccount(ctx),
  acceptTerms: (ctx) => acceptCurrentTerms(ctx, ANY),
  createStorefront: (ctx) => createStorefront(ctx, ANY),
  listStorefronts: (ctx) => listStorefronts(ctx, ANY),
  getStorefront: (ctx) => getStorefront(ctx, ANY),
  updateStorefront: (ctx) => updateStorefront(ctx, ANY),
  deleteStorefront: (ctx) => deleteStorefront(ctx, ANY),
  publishStorefront: (ctx) => publishStorefront(ctx, ANY),
  unpublishStorefront: (ctx) => unpublishStorefront(ctx, ANY),
  getStorefrontSettings: (ctx) => getStorefrontSettings(ctx, ANY),
  updateStorefrontSettings: (ctx) => updateStorefrontSettings(ctx, ANY),
  listBootstrappedUserStorefronts: (ctx) => loadBootstrappedUserStorefronts(ctx, ANY),
  createProduct: (ctx) => createProduct(ctx, ANY),
  createProductsBatch: (ctx) => createProducts(ctx, ANY),
  listProducts: (ctx) => listProducts(ctx, ANY),
  getProduct: (ctx) => getProduct(ctx, ANY),
  updateProduct: (ctx) => updateProduct(ctx, ANY),
  deleteProduct: (ctx) => deleteProduct(ctx, ANY),
  createWebhookEndpoint: (ctx) => createEndpoint(ctx, DEVELOPER),
  listWebhookEndpoints: (ctx) => listEndpoints(ctx, DEVELOPER),
  getWebhookEndpoint: (ctx) => getEndpoint(ctx, DEVELOPER),
  updateWebhookEndpoint: (ctx) => updateEndpoint(ctx, DEVELOPER),
  deleteWebhookEndpoint: (ctx) => deleteEndpoint(ctx, DEVELOPER),
  rotateWebhookSigningSecret: (ctx) => rotateSigningSecret(ctx, DEVELOPER),
  listWebhookDeliveries: (ctx) => listDeliveries(ctx, DEVELOPER),
  sendTestWebhook: (ctx) => sendTestEvent(ctx, DEVELOPER),
  resendWebhookDelivery: (ctx) => resendDelivery(ctx, DEVELOPER),
  recoverWebhookDeliveries: (ctx) => recoverDeliveries(ctx, DEVELOPER),
  readMerchantWebhookEndpoints: (ctx) => listEndpoints(ctx, { scope: "merchant", limit: 20 }),
  writeMerchantWebhookEndpoints: (ctx) => createEndpoint(ctx, { scope: "merchant", endpoint: ANY }),
  listEvents: (ctx) => listEvents(ctx, ANY),
  getEvent: (ctx) => getEvent(ctx, ANY),
  createListenSession: (ctx) => createListenSession(ctx, ANY),
  streamListenSession: (ctx) => openListenStream(ctx, ANY),
  listListenSessions: (ctx) => listListenSessions(ctx),
  closeListenSession: (ctx) => closeListenSession(ctx, ANY),
  triggerListenEvent: (ctx) => triggerListenEvent(ctx, ANY),
  createFile: (ctx) => createFile(ctx, ANY),
  getFile: (ctx) => getFile(ctx, ANY),
  importImage: (ctx) => importImage(ctx, ANY),
  createOrder: (ctx) => createOrder(ctx, ANY),
  listOrders: (ctx) => listOrders(ctx, ANY),
  getOrder: (ctx) => getOrder(ctx, ANY),
  updateOrderStatus: (ctx) => updateOrderStatus(ctx, ANY),
  payOrder: (ctx) => payOrder(ctx, ANY),
  reviewOAuthConsent: (ctx) => getConsentRequest(ctx, ANY),
  decideOAuthConsent: (ctx) => decideConsent(ctx, ANY),
  listConnectedApps: (ctx) => listConnectedApps(ctx),
  disconnectApp: (ctx) => disconnectApp(ctx, ANY),
  listAccountKeys: (ctx) => listAccountKeys(ctx),
  createAccountKey: (ctx) => createAccountKey(ctx, ANY),
  revokeAccountKey: (ctx) => revokeAccountKey(ctx, ANY),
  getAccount: (ctx) => getAccount(ctx),
  setAccountLanguage: (ctx) => setAccountLanguage(ctx, ANY),
  setPartnerAccess: (ctx) => setPartnerAccess(ctx, ANY),
  createDeveloperKey: (ctx) => createDeveloperKey(ctx, ANY),
  setPlan: (ctx) => setPlan(ctx, ANY),
  revokeDeveloperKey: (ctx) => revokeDeveloperKeyAndCascade(ctx, ANY),
  getMerchantOverview: (ctx) => getMerchantOverview(ctx),
  getDeliveryOverview: (ctx) => getDeliveryOverview(ctx),
};

/** A body each REST operation accepts, so the request gets past validation to the scope check. */
const VALID_BODIES: Partial<Record<OperationName, unknown>> = {
  bootstrapUser: { email: "someone@example.com" },
  issueUserKey: {},
  verifyEmail: { code: "123456" },
  resendVerification: {},
  acceptTerms: { version: "2026-05-12" },
  createStorefront: { name: "Shop", currency: "MXN" },
  updateStorefront: { name: "Shop" },
  createProduct: { title: "Taco", price: 1 },
  createProductsBatch: { products: [{ title: "Taco", price: 1 }] },
  updateProduct: { title: "Taco" },
  createWebhookEndpoint: { url: "https://example.com/hook" },
  updateWebhookEndpoint: { description: "x" },
  sendTestWebhook: { type: "order.created" },
  createListenSession: { forwardTo: "http://localhost:4000/hooks" },
  triggerListenEvent: { type: "order.created" },
  createOrder: {
    items: [{ productId: "prd_x", amount: 1 }],
    customer: { name: "Ana", phone: "+5215512345678" },
    paymentMethod: { name: "Cash" },
  },
  updateOrderStatus: { orderStatus: "accepted" },
  payOrder: { paymentMethod: { name: "Cash" } },
};

const scoped = (Object.keys(OPERATIONS) as OperationName[]).filter(
  (name) => OPERATIONS[name].scopes.length > 0,
);

let noScopeKey: string;
let noScopeActor: Actor;

beforeAll(async () => {
  const developer = await createDeveloper();
  const user = await bootstrapUserWithKey(developer.key);
  const db = await dbReady();
  await db.update(apiKeys).set({ scopes: [] }).where(eq(apiKeys.accountId, user.userId));
  noScopeKey = user.userKey;
  const { authenticateKey } = await import("@/server/gate/actors");
  noScopeActor = await authenticateKey(db, noScopeKey);
});

describe("the operations table", () => {
  it("every operation has its service in this test, and every keyed /v1 route names an operation", () => {
    expect(Object.keys(SERVICE_CALLS).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const route of API_ROUTES.filter((r) => r.auth === "key")) {
      expect(Object.keys(OPERATIONS), route.operationId).toContain(route.operationId);
    }
  });

  it.each(scoped)("%s: the service refuses a caller without its scope", async (name) => {
    const ctx = await contextWith(noScopeActor);
    const refusal = await SERVICE_CALLS[name](ctx).then(
      () => null,
      (error: AppError) => error,
    );
    expect(refusal?.code).toBe("insufficient_scope");
    expect(refusal?.options.requiredScopes).toEqual([...OPERATIONS[name].scopes]);
    expect(refusal?.options.heldScopes).toEqual([]);
  });

  it.each(scoped)("%s: no actor at all is 401 missing_authorization", async (name) => {
    await expect(SERVICE_CALLS[name](await contextWith(null))).rejects.toMatchObject({
      code: "missing_authorization",
    });
  });

  const restScoped = API_ROUTES.filter((route) => scoped.includes(route.operationId as OperationName));
  it.each(restScoped.map((route) => [route.operationId, route] as const))(
    "%s over /v1: 403 insufficient_scope with requiredScopes and heldScopes",
    async (name, route) => {
      const path = route.path.replace(/\{(\w+)\}/g, (_, param: string) => `${param}_x`);
      const body = VALID_BODIES[name as OperationName];
      const res = await call(route.method, path, { key: noScopeKey, body });
      expect(res.status, res.text).toBe(403);
      const { error } = ErrorEnvelope.parse(res.body);
      expect(error.code).toBe("insufficient_scope");
      expect(error.requiredScopes).toEqual([...OPERATIONS[name as OperationName].scopes]);
      expect(error.heldScopes).toEqual([]);
    },
  );

  it("an operation closed to a door refuses it whatever the scopes: bootstrapUser is never reachable over OAuth", async () => {
    const developer = await createDeveloper();
    const { authenticateKey } = await import("@/server/gate/actors");
    const keyActor = await authenticateKey(await dbReady(), developer.key);
    const oauthActor: Actor = {
      ...keyActor,
      via: {
        type: "oauth",
        clientId: "client_x",
        tokenId: "tok_x",
        key: keyActor.via.type === "api_key" ? keyActor.via.key : (null as never),
      },
    };
    await expect(
      bootstrapUser(await contextWith(oauthActor), { email: "x@example.com", language: "es" }),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
    const sessionActor: Actor = { ...keyActor, via: { type: "session", sessionId: "ses_x" } };
    await expect(getMe(await contextWith(sessionActor))).rejects.toMatchObject({
      code: "insufficient_scope",
    });
  });

  const operatorOnly = (Object.keys(OPERATIONS) as OperationName[]).filter(
    (name) => (OPERATIONS[name] as OperationDefinition).operator === true,
  );
  it.each(operatorOnly)(
    "%s is the operator's: refused to a developer key holding every scope and to a public context (server/accounts/service.test.ts runs it as the operator)",
    async (name) => {
      const developer = await createDeveloper();
      const { authenticateKey } = await import("@/server/gate/actors");
      const keyActor = await authenticateKey(await dbReady(), developer.key);
      const everyScope = { ...keyActor, scopes: [...Object.values(SCOPES)] };
      const refusal = (() => {
        try {
          authorizeActor(everyScope, name, OPERATIONS[name]);
        } catch (error) {
          return error;
        }
      })();
      expect(refusal).toMatchObject({ code: "insufficient_scope" });
      for (const ctx of [await contextWith(keyActor), await contextWith(null)]) {
        await expect(SERVICE_CALLS[name](ctx)).rejects.toMatchObject({ code: "insufficient_scope" });
      }
    },
  );

  it("the OpenAPI document lists each operation's scopes from the same table", async () => {
    const doc = (await call("GET", "/v1/openapi.json")).body as {
      paths: Record<
        string,
        Record<string, { operationId: string; security: Array<Record<string, string[]>> }>
      >;
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const patch = operations.find((op) => op.operationId === "updateStorefront");
    expect(patch?.security).toEqual([{ bearerAuth: ["catalog:write"] }, { apiKeyHeader: ["catalog:write"] }]);
    const webhooks = operations.find((op) => op.operationId === "createWebhookEndpoint");
    expect(webhooks?.security[0]?.bearerAuth).toEqual(["developer:webhooks", "developer:bootstrap"]);
  });
});
