import { describe, expect, it } from "vitest";
import { POST as placePublicOrder } from "@/app/s/[slug]/orders/route";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { env } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import { currentTerms } from "@/server/gate/terms";
import { createGraphQLYoga } from "@/server/graphql/yoga";
import { handleConsentDecision, handleDisconnect } from "@/server/oauth/forms";
import { handleAuthorize, handleRegister, handleRevoke, handleToken } from "@/server/oauth/http";
import { handleEmailStep, handleSignOut } from "@/server/sessions/forms";
import { handlePreferences } from "@/server/sessions/preferences";
import { signInThroughMail } from "@/server/sessions/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { schema } from "@/server/wiring/graphql";
import { handleMcpRequest } from "@/server/wiring/mcp";
import { handleV1Request, restActionFor } from "@/server/wiring/rest";
import { handleTrpcRequest } from "@/server/wiring/trpc";
import { BODY_LIMITS } from "./body";

// docs/security.md, "Request bodies and door limits": every door reads its body through the kit's capped reader,
// so a body over its door's cap is refused while it arrives. Each request here carries a body that never ends:
// a door that read it whole would never answer. `pulled` counts what the door took of it.

const APP = new URL(env().APP_URL).origin;
const CHUNK = 16 * 1024;

/** A POST whose body never ends, and how many bytes the door pulled from it. */
function endless(path: string, headers: Record<string, string>) {
  let pulled = 0;
  const chunk = new Uint8Array(CHUNK).fill(0x61);
  const body = new ReadableStream<Uint8Array>({
    // Each chunk after a turn of the event loop, as from a network: a door that reads forever still lets the
    // test's timeout fire.
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      pulled += chunk.byteLength;
      controller.enqueue(chunk.slice());
    },
  });
  const request = new Request(`${APP}${path}`, {
    method: "POST",
    headers: { host: new URL(APP).host, ...headers },
    body,
    duplex: "half",
  } as RequestInit);
  return { request, pulled: () => pulled };
}

/** Read at most the cap and a few chunks (a reader may be a chunk or two ahead). */
function expectStoppedNear(pulled: number, cap: number) {
  expect(pulled).toBeGreaterThan(0);
  expect(pulled).toBeLessThanOrEqual(cap + 4 * CHUNK);
}

async function envelopeOf(response: Response) {
  return ErrorEnvelope.parse(await response.json()).error;
}

const JSON_TYPE = { "content-type": "application/json" };
const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" };

async function signedInCookie(): Promise<string> {
  const merchant = await createMerchant({ verified: true });
  const signedIn = await signInThroughMail(merchant.email);
  if (signedIn.kind !== "signed_in") throw new Error("expected a signed-in session");
  await acceptCurrentTerms(await sessionContextFor(signedIn.accountId), { version: currentTerms().version });
  return `marea_session=${signedIn.session.token}`;
}

describe("the API doors refuse an endless body at 1 MiB, after authentication", () => {
  it("/v1 (capped before, now through the kit): 401 without a key before reading; 413 at 1 MiB with one", async () => {
    const anonymous = endless("/v1/storefronts", JSON_TYPE);
    const refused = await handleV1Request(anonymous.request);
    expect(refused.status).toBe(401);
    expect(anonymous.pulled()).toBeLessThanOrEqual(CHUNK);
    const merchant = await createMerchant({ verified: true });
    const keyed = endless("/v1/storefronts", { ...JSON_TYPE, authorization: `Bearer ${merchant.userKey}` });
    const res = await handleV1Request(keyed.request);
    expect(res.status).toBe(413);
    expect((await envelopeOf(res)).code).toBe("payload_too_large");
    expectStoppedNear(keyed.pulled(), BODY_LIMITS.api);
  });

  it("GraphQL (capped before, now through the kit): 413 payload_too_large at 1 MiB, chunked", async () => {
    const merchant = await createMerchant({ verified: true });
    const { request, pulled } = endless("/api/graphql", {
      ...JSON_TYPE,
      authorization: `Bearer ${merchant.userKey}`,
    });
    const res = await createGraphQLYoga(schema, { resolveAction: restActionFor }).fetch(request);
    const body = (await res.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0]?.extensions.code).toBe("payload_too_large");
    expectStoppedNear(pulled(), BODY_LIMITS.api);
  });

  it("MCP (capped before, now through the kit): 401 without credentials before reading; 413 at 1 MiB with a key", async () => {
    const anonymous = endless("/mcp", JSON_TYPE);
    expect((await handleMcpRequest(anonymous.request)).status).toBe(401);
    expect(anonymous.pulled()).toBeLessThanOrEqual(CHUNK);
    const merchant = await createMerchant({ verified: true });
    const { request, pulled } = endless("/mcp", {
      ...JSON_TYPE,
      authorization: `Bearer ${merchant.userKey}`,
    });
    const res = await handleMcpRequest(request);
    expect(res.status).toBe(413);
    expect((await envelopeOf(res)).code).toBe("payload_too_large");
    expectStoppedNear(pulled(), BODY_LIMITS.api);
  });

  it("S1 tRPC: a signed-out call is 401 before a byte of its body is read; a signed-in one is 413 at 1 MiB", async () => {
    const anonymous = endless("/api/trpc/storefronts.create", { ...JSON_TYPE, origin: APP });
    const refused = await handleTrpcRequest(anonymous.request);
    expect(refused.status).toBe(401);
    expect(anonymous.pulled()).toBeLessThanOrEqual(CHUNK);

    const cookie = await signedInCookie();
    const { request, pulled } = endless("/api/trpc/storefronts.create", {
      ...JSON_TYPE,
      origin: APP,
      cookie,
    });
    const res = await handleTrpcRequest(request);
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { data: { error: { code: string } } } };
    expect(body.error.data.error.code).toBe("payload_too_large");
    expectStoppedNear(pulled(), BODY_LIMITS.api);

    // A declared length over the cap is refused without reading, after the session check too.
    const declared = await handleTrpcRequest(
      new Request(`${APP}/api/trpc/storefronts.create`, {
        method: "POST",
        headers: { ...JSON_TYPE, origin: APP, cookie, "content-length": String(BODY_LIMITS.api + 1) },
        body: "{}",
      }),
    );
    expect(declared.status).toBe(413);
  });
});

describe("M3: the cookie and public doors refuse an endless body at their small caps", () => {
  it("M3 public checkout: 403 from another site without reading; 413 at 64 KiB, in the envelope, in the page's language", async () => {
    const params = { params: Promise.resolve({ slug: "any-store" }) };
    const foreign = endless("/s/any-store/orders", { ...JSON_TYPE, origin: "https://evil.example" });
    expect((await placePublicOrder(foreign.request, params)).status).toBe(403);
    expect(foreign.pulled()).toBeLessThanOrEqual(CHUNK);
    const { request, pulled } = endless("/s/any-store/orders", {
      ...JSON_TYPE,
      origin: APP,
      "accept-language": "es",
    });
    const res = await placePublicOrder(request, params);
    expect(res.status).toBe(413);
    const error = await envelopeOf(res);
    expect(error.code).toBe("payload_too_large");
    expect(error.message).toBe("El cuerpo de la solicitud supera 64 KiB.");
    expect(res.headers.get("x-request-id")).toBe(error.requestId);
    expectStoppedNear(pulled(), BODY_LIMITS.checkout);
  });

  it("M3 sign-in forms: another site is refused (403) before the form is read; the form is capped at 16 KiB", async () => {
    const foreign = endless("/signin/email", { ...FORM_TYPE, origin: "https://evil.example" });
    expect((await handleEmailStep(foreign.request)).status).toBe(403);
    expect(foreign.pulled()).toBeLessThanOrEqual(CHUNK);
    for (const handler of [handleEmailStep, handleSignOut]) {
      const { request, pulled } = endless("/signin/email", { ...FORM_TYPE, origin: APP });
      const res = await handler(request);
      expect(res.status).toBe(413);
      expect(await res.text()).toBe("The request body is larger than 16 KiB.");
      expectStoppedNear(pulled(), BODY_LIMITS.form);
    }
  });

  it("M3 preferences and the OAuth consent and disconnect forms: 413 at 16 KiB", async () => {
    for (const [path, handler] of [
      ["/preferences", handlePreferences],
      ["/oauth/consent", handleConsentDecision],
      ["/oauth/disconnect", handleDisconnect],
    ] as const) {
      const { request, pulled } = endless(path, { ...FORM_TYPE, origin: APP });
      const res = await handler(request);
      expect(res.status, path).toBe(413);
      expectStoppedNear(pulled(), BODY_LIMITS.form);
    }
  });

  it("M3 form routes refuse multipart/form-data (400) before reading it", async () => {
    const multipart = { "content-type": "multipart/form-data; boundary=x", origin: APP };
    for (const [path, handler] of [
      ["/signin/email", handleEmailStep],
      ["/preferences", handlePreferences],
      ["/oauth/consent", handleConsentDecision],
    ] as const) {
      const { request, pulled } = endless(path, multipart);
      const res = await handler(request);
      expect(res.status, path).toBe(400);
      expect(pulled(), path).toBeLessThanOrEqual(CHUNK);
    }
  });

  it("M3 OAuth endpoints: token, revoke, register and POST authorize are 413 at 64 KiB, in RFC 6749's shape", async () => {
    for (const [path, handler, type] of [
      ["/oauth/token", handleToken, FORM_TYPE],
      ["/oauth/revoke", handleRevoke, FORM_TYPE],
      ["/oauth/register", handleRegister, JSON_TYPE],
      ["/oauth/authorize", handleAuthorize, FORM_TYPE],
    ] as const) {
      const { request, pulled } = endless(path, type);
      const res = await handler(request);
      expect(res.status, path).toBe(413);
      expect(await res.json()).toEqual({
        error: "invalid_request",
        error_description: "The request body is larger than 64 KiB.",
      });
      expectStoppedNear(pulled(), BODY_LIMITS.oauth);
    }
  });
});
