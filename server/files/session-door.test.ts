import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import { currentTerms } from "@/server/gate/terms";
import { BODY_LIMITS } from "@/server/kit/body";
import { signInThroughMail } from "@/server/sessions/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { FileEnvelope } from "./schema";
import { handleSessionUpload } from "./session-door";
import { files } from "./tables";
import { keepFilesInTemporaryFolder, makeJpeg } from "./testing";

// The dashboard's upload door, POST /api/files (docs/ui.md, "Photos"; docs/security.md, "Request bodies and door
// limits"): the session cookie, the Origin check and POST /v1/files's own service function.
keepFilesInTemporaryFolder();

const APP_ORIGIN = new URL(env().APP_URL).origin;

async function signedInMerchant() {
  const merchant = await createMerchant({ verified: true });
  const signedIn = await signInThroughMail(merchant.email);
  if (signedIn.kind !== "signed_in") throw new Error("expected a signed-in session");
  await acceptCurrentTerms(await sessionContextFor(signedIn.accountId), { version: currentTerms().version });
  return { accountId: signedIn.accountId, cookie: `marea_session=${signedIn.session.token}` };
}

function upload(body: Blob, init: { cookie?: string; origin?: string } = {}) {
  const form = new FormData();
  form.append("file", body, "photo.jpg");
  const headers = new Headers();
  if (init.cookie) headers.set("cookie", init.cookie);
  if (init.origin) headers.set("origin", init.origin);
  return handleSessionUpload(new Request(`${APP_ORIGIN}/api/files`, { method: "POST", headers, body: form }));
}

async function filesOf(accountId: string) {
  const db = await dbReady();
  return db.select({ id: files.id }).from(files).where(eq(files.accountId, accountId));
}

describe("POST /api/files (the session's upload door)", () => {
  it("success: a signed-in merchant from the dashboard's origin gets 201 {file} stored under their account", async () => {
    const { accountId, cookie } = await signedInMerchant();
    const jpeg = await makeJpeg(320, 240);
    const res = await upload(new Blob([new Uint8Array(jpeg)], { type: "image/jpeg" }), {
      cookie,
      origin: APP_ORIGIN,
    });
    expect(res.status).toBe(201);
    const { file } = FileEnvelope.parse(await res.json());
    expect(file).toMatchObject({ contentType: "image/jpeg", width: 320, height: 240 });
    expect(file.url).toBe(`${env().APP_URL}/files/${file.id}`);
    expect((await filesOf(accountId)).map((row) => row.id)).toEqual([file.id]);
  });

  it("no session: 401 missing_authorization in the envelope", async () => {
    const jpeg = await makeJpeg(32, 32);
    const res = await upload(new Blob([new Uint8Array(jpeg)], { type: "image/jpeg" }), {
      origin: APP_ORIGIN,
    });
    expect(res.status).toBe(401);
    expect(ErrorEnvelope.parse(await res.json()).error.code).toBe("missing_authorization");
  });

  it("CSRF: a cookie write from another origin is 403 cross_site_request and stores nothing", async () => {
    const { accountId, cookie } = await signedInMerchant();
    const jpeg = await makeJpeg(32, 32);
    const res = await upload(new Blob([new Uint8Array(jpeg)], { type: "image/jpeg" }), {
      cookie,
      origin: "https://evil.example",
    });
    expect(res.status).toBe(403);
    expect(ErrorEnvelope.parse(await res.json()).error.code).toBe("cross_site_request");
    // Without Origin or Sec-Fetch-Site (not a browser's same-origin request), a POST is refused too.
    const bare = await upload(new Blob([new Uint8Array(jpeg)], { type: "image/jpeg" }), { cookie });
    expect(bare.status).toBe(403);
    expect(await filesOf(accountId)).toEqual([]);
  });

  it("the service's rules hold: bytes that are not the image they claim are 400 invalid_request, nothing stored", async () => {
    const { accountId, cookie } = await signedInMerchant();
    const res = await upload(new Blob(["not a photo"], { type: "image/jpeg" }), {
      cookie,
      origin: APP_ORIGIN,
    });
    expect(res.status).toBe(400);
    expect(ErrorEnvelope.parse(await res.json()).error.code).toBe("invalid_request");
    expect(await filesOf(accountId)).toEqual([]);
  });

  it("over 10 MiB: 413 payload_too_large from the declared length, before the body is read", async () => {
    const { cookie } = await signedInMerchant();
    const res = await handleSessionUpload(
      new Request(`${APP_ORIGIN}/api/files`, {
        method: "POST",
        headers: { cookie, origin: APP_ORIGIN, "content-type": "image/jpeg", "content-length": "20000000" },
        body: "x",
      }),
    );
    expect(res.status).toBe(413);
    expect(ErrorEnvelope.parse(await res.json()).error.code).toBe("payload_too_large");
  });

  it("an endless body: 401 signed out before a byte is read; signed in, 413 once it passes 10 MiB", async () => {
    const CHUNK = 64 * 1024;
    const endless = (headers: Record<string, string>) => {
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setImmediate(resolve));
          pulled += CHUNK;
          controller.enqueue(new Uint8Array(CHUNK).fill(0x61));
        },
      });
      const request = new Request(`${APP_ORIGIN}/api/files`, {
        method: "POST",
        headers: { "content-type": "image/jpeg", origin: APP_ORIGIN, ...headers },
        body,
        duplex: "half",
      } as RequestInit);
      return { request, pulled: () => pulled };
    };
    const anonymous = endless({});
    expect((await handleSessionUpload(anonymous.request)).status).toBe(401);
    expect(anonymous.pulled()).toBeLessThanOrEqual(CHUNK);
    const { cookie } = await signedInMerchant();
    const { request, pulled } = endless({ cookie });
    const res = await handleSessionUpload(request);
    expect(res.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(BODY_LIMITS.file + 16 * 1024 + 4 * CHUNK);
  });
});
