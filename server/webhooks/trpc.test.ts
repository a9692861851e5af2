import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { createDeveloper } from "@/server/accounts/testing";
import { env } from "@/server/env";
import { ERROR_CATALOGUE } from "@/server/errors";
import { currentTerms } from "@/server/gate/terms";
import { createMerchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { createTrpcContextFromRequest } from "@/server/trpc/context";
import { appRouter, createCaller } from "@/server/wiring/trpc";

// The dashboard's webhook procedures through the tRPC caller and door (docs/ui.md, "tRPC"; docs/webhooks.md):
// the same operations table as /v1 decides, another account's endpoint is not found, errors keep the catalogue's
// shape.

const APP_ORIGIN = new URL(env().APP_URL).origin;
const FOREIGN_ID = "mk_we_0123456789abcdef";

async function callerFor(accountId: string) {
  return createCaller({ service: await sessionContextFor(accountId), sameOrigin: true });
}

async function verifiedMerchant() {
  const merchant = await createMerchant({ verified: true });
  return { merchant, caller: await callerFor(merchant.userId) };
}

/** The catalogue error a rejected call carries (what the error formatter sends as `error.data.error`). */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError & { cause: { code: string; options: { param?: string | null } } };
}

function httpQuery(path: string, input: unknown, cookie?: string) {
  const request = new Request(
    `${APP_ORIGIN}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`,
    { headers: cookie ? { cookie } : {} },
  );
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createTrpcContextFromRequest(request),
  });
}

describe("webhooks over tRPC: who may call", () => {
  it.each([
    ["webhooks.overview", {}],
    ["webhooks.listDeliveries", { endpointId: FOREIGN_ID }],
    ["webhooks.getDelivery", { endpointId: FOREIGN_ID, deliveryId: "dlv_x" }],
    ["webhooks.health", { endpointId: FOREIGN_ID }],
  ])("%s without a session is 401 missing_authorization in the catalogue shape", async (path, input) => {
    const response = await httpQuery(path, input);
    expect(response.status).toBe(401);
    const error = (await response.json()).error.data.error;
    expect(error).toMatchObject({ code: "missing_authorization", type: "auth", param: null });
    expect(error.message).toBe(ERROR_CATALOGUE.missing_authorization.messages.en);
    expect(error.requestId).toMatch(/^req_/);
  });

  it("a signed-in unverified account manages its merchant endpoints but not developer ones (insufficient_scope)", async () => {
    const merchant = await createMerchant();
    const caller = await callerFor(merchant.userId);
    expect((await caller.webhooks.overview({})).data).toEqual([]);
    const refused = await refusal(caller.webhooks.overview({ scope: "developer" }));
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.cause.code).toBe("insufficient_scope");
  });

  it("a merchant-only account asking for developer endpoints is refused with requiredScopes and heldScopes", async () => {
    const { caller } = await verifiedMerchant();
    const refused = await refusal(
      caller.webhooks.createEndpoint({
        scope: "developer",
        endpoint: { url: "https://hooks.example.com/x" },
      }),
    );
    expect(refused.cause).toMatchObject({
      code: "insufficient_scope",
      options: {
        requiredScopes: ["developer:webhooks", "developer:bootstrap"],
        heldScopes: expect.any(Array),
      },
    });
  });

  it("an account holding a developer key manages developer endpoints from the dashboard too", async () => {
    const developer = await createDeveloper();
    await acceptCurrentTerms(await sessionContextFor(developer.accountId), {
      version: currentTerms().version,
    });
    const caller = await callerFor(developer.accountId);
    const created = await caller.webhooks.createEndpoint({
      scope: "developer",
      endpoint: { url: "https://hooks.example.com/dev" },
    });
    expect(created.scope).toBe("developer");
    const overview = await caller.webhooks.overview({ scope: "developer" });
    expect(overview.data.map((e) => e.endpointId)).toEqual([created.endpointId]);
    expect((await caller.webhooks.overview({})).data).toEqual([]);
  });

  it("another account's endpoint id is not found in every procedure, reads and writes alike", async () => {
    const owner = await verifiedMerchant();
    const endpoint = await owner.caller.webhooks.createEndpoint({
      endpoint: { url: "https://hooks.example.com/mine" },
    });
    const ref = { endpointId: endpoint.endpointId };
    const { caller } = await verifiedMerchant();
    const calls: Array<() => Promise<unknown>> = [
      () => caller.webhooks.getEndpoint(ref),
      () => caller.webhooks.listDeliveries(ref),
      () => caller.webhooks.health(ref),
      () => caller.webhooks.getDelivery({ ...ref, deliveryId: "dlv_01jv0000000000000000000000" }),
      () => caller.webhooks.updateEndpoint({ ...ref, patch: { description: "mine now" } }),
      () => caller.webhooks.rotateSecret(ref),
      () => caller.webhooks.sendTestEvent({ ...ref, type: "order.created" }),
      () => caller.webhooks.resendDelivery({ ...ref, deliveryId: "dlv_01jv0000000000000000000000" }),
      () => caller.webhooks.recoverDeliveries({ ...ref, since: new Date(0).toISOString() }),
      () => caller.webhooks.deleteEndpoint(ref),
    ];
    for (const call of calls) {
      const refused = await refusal(call());
      expect(refused.code).toBe("NOT_FOUND");
      expect(refused.cause).toMatchObject({ code: "webhook_endpoint_not_found", options: { param: "id" } });
    }
    // Still there, unchanged, for its owner.
    expect(await owner.caller.webhooks.getEndpoint(ref)).toMatchObject({
      description: "",
      signingSecretVersion: 1,
    });
  });

  it("errors over HTTP carry code, type, param and the localized message: a foreign id and a bad filter", async () => {
    const merchant = await createMerchant({ verified: true });
    const { signInThroughMail } = await import("@/server/sessions/testing");
    const signedIn = await signInThroughMail(merchant.email);
    if (signedIn.kind !== "signed_in") throw new Error("expected a session");
    const cookie = `marea_session=${signedIn.session.token}`;
    const notFound = await httpQuery("webhooks.listDeliveries", { endpointId: FOREIGN_ID }, cookie);
    expect(notFound.status).toBe(404);
    expect((await notFound.json()).error.data.error).toMatchObject({
      code: "webhook_endpoint_not_found",
      type: "not_found",
      param: "id",
      message: ERROR_CATALOGUE.webhook_endpoint_not_found.messages.en,
    });
    const badFilter = await httpQuery(
      "webhooks.listDeliveries",
      { endpointId: FOREIGN_ID, status: "lost" },
      cookie,
    );
    expect(badFilter.status).toBe(400);
    expect((await badFilter.json()).error.data.error).toMatchObject({
      code: "invalid_request",
      param: "status",
    });
  });

  it("the 17th endpoint is webhook_endpoint_limit_reached, as over /v1", async () => {
    const { caller } = await verifiedMerchant();
    for (let i = 0; i < 16; i++)
      await caller.webhooks.createEndpoint({ endpoint: { url: `https://hooks.example.com/${i}` } });
    const refused = await refusal(
      caller.webhooks.createEndpoint({ endpoint: { url: "https://hooks.example.com/17" } }),
    );
    expect(refused.code).toBe("CONFLICT");
    expect(refused.cause.code).toBe("webhook_endpoint_limit_reached");
  });
});
