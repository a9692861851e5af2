import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { ERROR_CATALOGUE } from "@/server/errors";
import { accounts } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { signOut } from "@/server/sessions/service";
import { signedInSession } from "@/server/sessions/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { createTrpcContextFromRequest } from "@/server/trpc/context";
import { webhookEvents } from "@/server/webhooks/tables";
import { appRouter, createCaller } from "@/server/wiring/trpc";
import { acceptCurrentTerms } from "./cancellation";
import { bootstrapUser, createDeveloper } from "./testing";

// The dashboard's accounts and overview procedures over the tRPC door, on a real database (docs/ui.md, "tRPC"):
// the auth matrix, another account's ids, the catalogue error shape.

const APP_ORIGIN = new URL(env().APP_URL).origin;

type Called = {
  status: number;
  body: { result?: { data: unknown }; error?: { data: { error: Record<string, unknown> } } };
};

async function call(
  path: string,
  init: { cookie?: string; body?: unknown; mutation?: boolean; origin?: string; language?: string } = {},
): Promise<Called> {
  const headers = new Headers({ "content-type": "application/json" });
  if (init.cookie) headers.set("cookie", init.cookie);
  if (init.language) headers.set("accept-language", init.language);
  const isMutation = init.mutation ?? false;
  if (isMutation) headers.set("origin", init.origin ?? APP_ORIGIN);
  const url = isMutation
    ? `${APP_ORIGIN}/api/trpc/${path}`
    : `${APP_ORIGIN}/api/trpc/${path}${init.body === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(init.body))}`}`;
  const request = new Request(url, {
    method: isMutation ? "POST" : "GET",
    headers,
    body: isMutation ? JSON.stringify(init.body ?? {}) : undefined,
  });
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createTrpcContextFromRequest(request),
  });
  return { status: response.status, body: await response.json() };
}

const errorOf = (called: Called) => called.body.error?.data.error;

function dataOf<T>(called: Called): T {
  if (!called.body.result) throw new Error(`no result: ${JSON.stringify(called.body)}`);
  return called.body.result.data as T;
}

/** A signed-in session (through the mailed code) of the merchant's account: its cookie. */
async function merchantCookie() {
  const merchant = await createMerchant({ verified: true });
  const signedIn = await signedInSession(merchant.email);
  return { merchant, token: signedIn.session.token, cookie: `marea_session=${signedIn.session.token}` };
}

async function developerCookie() {
  const developer = await createDeveloper();
  const signedIn = await signedInSession(developer.email);
  await acceptCurrentTerms(await sessionContextFor(developer.accountId), { version: currentTerms().version });
  return { developer, cookie: `marea_session=${signedIn.session.token}` };
}

const PROCEDURES: Array<{ path: string; mutation?: boolean; body?: unknown }> = [
  { path: "accounts.listKeys" },
  { path: "accounts.createKey", mutation: true, body: { kind: "user" } },
  { path: "accounts.previewKeyRevocation", body: { keyId: "key_x" } },
  { path: "accounts.revokeKey", mutation: true, body: { keyId: "key_x" } },
  { path: "accounts.get" },
  { path: "accounts.setLanguage", mutation: true, body: { language: "es" } },
  { path: "accounts.acceptTerms", mutation: true, body: { version: "x" } },
  { path: "accounts.cancel", mutation: true, body: {} },
  { path: "accounts.listPartnerUsers", body: {} },
  { path: "accounts.issueUserKey", mutation: true, body: { userId: "usr_x" } },
  { path: "overview.merchant" },
  { path: "overview.deliveries" },
];

describe("accounts and overview over tRPC", () => {
  it.each(PROCEDURES)(
    "$path without a session: 401 missing_authorization in the catalogue shape",
    async (procedure) => {
      const called = await call(procedure.path, procedure);
      expect(called.status).toBe(401);
      expect(errorOf(called)).toMatchObject({ code: "missing_authorization", type: "auth" });
    },
  );

  it("auth matrix: a merchant's session reads its keys, account and overview; developer procedures are 403 insufficient_scope", async () => {
    const { cookie } = await merchantCookie();
    for (const path of ["accounts.listKeys", "accounts.get", "overview.merchant"]) {
      expect((await call(path, { cookie })).status, path).toBe(200);
    }
    for (const path of ["accounts.listPartnerUsers", "overview.deliveries"]) {
      const called = await call(path, { cookie, body: path === "overview.deliveries" ? undefined : {} });
      expect(called.status, path).toBe(403);
      expect(errorOf(called)).toMatchObject({ code: "insufficient_scope", type: "auth" });
    }
    const issued = await call("accounts.issueUserKey", { cookie, mutation: true, body: { userId: "usr_x" } });
    expect(errorOf(issued)).toMatchObject({
      code: "insufficient_scope",
      requiredScopes: ["developer:issueUserKey"],
    });
  });

  it("auth matrix: a developer's session lists its bootstrapped users, issues a key for one, and reads deliveries", async () => {
    const { developer, cookie } = await developerCookie();
    const made = await bootstrapUser(developer.key);
    const list = await call("accounts.listPartnerUsers", { cookie, body: { status: "unverified" } });
    expect(list.status).toBe(200);
    expect(dataOf<{ data: Array<{ id: string }> }>(list).data.map((u) => u.id)).toEqual([made.userId]);
    const issued = await call("accounts.issueUserKey", {
      cookie,
      mutation: true,
      body: { userId: made.userId },
    });
    expect(issued.status).toBe(200);
    expect(dataOf<{ userKey: string }>(issued).userKey).toMatch(/^mk_user_/);
    expect((await call("overview.deliveries", { cookie })).status).toBe(200);
  });

  it("another account's key id and user id are not found: 404 with their param", async () => {
    const { cookie } = await merchantCookie();
    const { developer, cookie: developerSession } = await developerCookie();
    const other = await createDeveloper();
    const foreignUser = await bootstrapUser(other.key);
    for (const path of ["accounts.previewKeyRevocation", "accounts.revokeKey"]) {
      const called = await call(path, {
        cookie,
        mutation: path === "accounts.revokeKey",
        body: { keyId: developer.keyId },
      });
      expect(called.status, path).toBe(404);
      expect(errorOf(called)).toMatchObject({ code: "api_key_not_found", type: "not_found", param: "keyId" });
    }
    const issued = await call("accounts.issueUserKey", {
      cookie: developerSession,
      mutation: true,
      body: { userId: foreignUser.userId },
    });
    expect(issued.status).toBe(404);
    expect(errorOf(issued)).toMatchObject({ code: "user_not_found", param: "userId" });
    // The developer's key still works: nothing was revoked.
    const keys = await call("accounts.listKeys", { cookie: developerSession });
    expect(dataOf<Array<{ id: string }>>(keys).map((k) => k.id)).toContain(developer.keyId);
  });

  it("a bad field is invalid_request with its param, in the caller's language; the raw key comes back once", async () => {
    const { cookie } = await merchantCookie();
    const tooBig = await call("accounts.createKey", {
      cookie,
      mutation: true,
      language: "es",
      body: { kind: "developer", name: "partner", dailyLimit: 10_001 },
    });
    expect(tooBig.status).toBe(400);
    const error = errorOf(tooBig);
    expect(error).toMatchObject({ code: "invalid_request", param: "dailyLimit", type: "invalid_request" });
    expect(String(error?.message).startsWith(ERROR_CATALOGUE.invalid_request.messages.es)).toBe(true);
    expect(error?.requestId).toMatch(/^req_/);
    const created = await call("accounts.createKey", {
      cookie,
      mutation: true,
      body: { kind: "developer", name: "partner" },
    });
    expect(created.status).toBe(200);
    const { rawKey, key } = dataOf<{ rawKey: string; key: { id: string; dailyLimit: number } }>(created);
    expect(rawKey).toMatch(/^mk_dev_/);
    expect(key.dailyLimit).toBe(50);
    const listed = await call("accounts.listKeys", { cookie });
    expect(JSON.stringify(listed.body)).not.toContain(rawKey);
  });

  it("a mutation from a foreign Origin is refused (CSRF) before any work: the key stays live", async () => {
    const { cookie } = await merchantCookie();
    const keys = (await call("accounts.listKeys", { cookie })).body.result?.data as Array<{ id: string }>;
    const keyId = keys[0]?.id;
    for (const path of ["accounts.revokeKey", "accounts.cancel", "accounts.createKey"]) {
      const called = await call(path, {
        cookie,
        mutation: true,
        origin: "https://evil.example",
        body:
          path === "accounts.revokeKey" ? { keyId } : path === "accounts.createKey" ? { kind: "user" } : {},
      });
      expect(called.status, path).toBe(403);
      expect(errorOf(called)?.code).toBe("cross_site_request");
    }
    const after = (await call("accounts.listKeys", { cookie })).body.result?.data as Array<{ id: string }>;
    expect(after.map((k) => k.id)).toEqual([keyId]);
    expect((await call("accounts.get", { cookie })).status).toBe(200);
  });

  it("a session replayed after sign-out is refused: 401", async () => {
    const { cookie, token } = await merchantCookie();
    expect((await call("accounts.get", { cookie })).status).toBe(200);
    await signOut(await dbReady(), token);
    const replayed = await call("accounts.get", { cookie });
    expect(replayed.status).toBe(401);
    expect(errorOf(replayed)?.code).toBe("missing_authorization");
    const mutation = await call("accounts.createKey", { cookie, mutation: true, body: { kind: "user" } });
    expect(mutation.status).toBe(401);
  });

  it("cancelling from the dashboard ends the account (user_clicked_cancel, user.cancelled to its developer), then the session is dead", async () => {
    const { cookie, merchant } = await merchantCookie();
    const cancelled = await call("accounts.cancel", { cookie, mutation: true, body: {} });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.result?.data).toEqual({ id: merchant.userId, deleted: true });
    const db = await dbReady();
    const [row] = await db.select().from(accounts).where(eq(accounts.id, merchant.userId));
    expect(row).toMatchObject({ status: "cancelled", cancelReason: "user_clicked_cancel" });
    const events = await db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, "user.cancelled"), eq(webhookEvents.accountId, merchant.userId)));
    expect(events).toHaveLength(1);
    expect((await call("accounts.get", { cookie })).status).toBe(401);
  });

  it("the server caller (server components) reads with the session's actor and cannot mutate", async () => {
    const merchant = await createMerchant({ verified: true });
    const caller = createCaller({ service: await sessionContextFor(merchant.userId), sameOrigin: false });
    expect((await caller.accounts.get()).email).toBe(merchant.email);
    await expect(caller.accounts.createKey({ kind: "user" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
