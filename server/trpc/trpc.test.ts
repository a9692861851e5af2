import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { env } from "@/server/env";
import { ERROR_CATALOGUE } from "@/server/errors";
import { currentTerms } from "@/server/gate/terms";
import { signInThroughMail } from "@/server/sessions/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { appRouter, createCaller } from "@/server/wiring/trpc";
import { createTrpcContextFromRequest } from "./context";

// The tRPC door (docs/ui.md, "tRPC"): the session cookie's actor, Origin-checked mutations, catalogue errors.

const APP_ORIGIN = new URL(env().APP_URL).origin;

function call(
  path: string,
  init: { cookie?: string; body?: unknown; origin?: string; language?: string } = {},
) {
  const headers = new Headers({ "content-type": "application/json" });
  if (init.cookie) headers.set("cookie", init.cookie);
  if (init.origin) headers.set("origin", init.origin);
  if (init.language) headers.set("accept-language", init.language);
  const isMutation = init.body !== undefined;
  const url = isMutation
    ? `${APP_ORIGIN}/api/trpc/${path}`
    : `${APP_ORIGIN}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(init.body ?? {}))}`;
  const request = new Request(url, {
    method: isMutation ? "POST" : "GET",
    headers,
    body: isMutation ? JSON.stringify(init.body) : undefined,
  });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createTrpcContextFromRequest(request),
  });
}

async function signedInMerchant() {
  const merchant = await createMerchant({ verified: true });
  const signedIn = await signInThroughMail(merchant.email);
  if (signedIn.kind !== "signed_in") throw new Error("expected a signed-in session");
  await acceptCurrentTerms(await sessionContextFor(signedIn.accountId), { version: currentTerms().version });
  return { merchant, cookie: `marea_session=${signedIn.session.token}` };
}

describe("tRPC door", () => {
  it("refuses a call without a session: 401 missing_authorization in the catalogue shape", async () => {
    const response = await call("webhooks.listEndpoints");
    expect(response.status).toBe(401);
    const body = await response.json();
    expect(body.error.data.error).toMatchObject({ code: "missing_authorization", type: "auth", param: null });
    expect(body.error.data.error.requestId).toMatch(/^req_/);
  });

  it("answers a signed-in merchant's list, and refuses a mutation from a foreign Origin (CSRF) before any work", async () => {
    const { cookie } = await signedInMerchant();
    const list = await call("webhooks.listEndpoints", { cookie });
    expect(list.status).toBe(200);
    expect((await list.json()).result.data).toEqual({ data: [], nextCursor: null });

    const endpoint = { url: "https://hooks.example.com/marea" };
    const foreign = await call("webhooks.createEndpoint", {
      cookie,
      origin: "https://evil.example",
      body: { endpoint },
    });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.data.error.code).toBe("cross_site_request");
    const still = await call("webhooks.listEndpoints", { cookie });
    expect((await still.json()).result.data.data).toHaveLength(0);

    const created = await call("webhooks.createEndpoint", { cookie, origin: APP_ORIGIN, body: { endpoint } });
    expect(created.status).toBe(200);
    expect((await created.json()).result.data.signingSecret).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a bad field is the catalogue's invalid_request with its param, in the caller's language", async () => {
    const { cookie } = await signedInMerchant();
    const response = await call("webhooks.createEndpoint", {
      cookie,
      origin: APP_ORIGIN,
      language: "es",
      body: { endpoint: { url: "http://hooks.example.com/x" } },
    });
    expect(response.status).toBe(400);
    const error = (await response.json()).error.data.error;
    expect(error.code).toBe("invalid_webhook_url");
    expect(error.param).toBe("url");
    const unknownField = await call("webhooks.createEndpoint", {
      cookie,
      origin: APP_ORIGIN,
      language: "es",
      body: { endpoint: { url: "https://hooks.example.com/x", colour: "red" } },
    });
    const invalid = (await unknownField.json()).error.data.error;
    expect(invalid).toMatchObject({ code: "invalid_request", param: "endpoint.colour" });
    expect(invalid.message.startsWith(ERROR_CATALOGUE.invalid_request.messages.es)).toBe(true);
  });

  it("the server-side caller runs the same procedures with the session's actor", async () => {
    const { merchant } = await signedInMerchant();
    const ctx = await sessionContextFor(merchant.userId);
    const caller = createCaller({ service: ctx, sameOrigin: false });
    expect((await caller.webhooks.listEndpoints({})).data).toEqual([]);
    // The server caller is built cross-origin: it cannot mutate.
    await expect(
      caller.webhooks.createEndpoint({ endpoint: { url: "https://hooks.example.com/x" } }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
