import { afterEach, describe, expect, it } from "vitest";
import { uniqueEmail } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { currentTerms } from "@/server/gate/terms";
import { listOutbox } from "@/server/mail/service";
import { setTestEnv } from "@/server/webhooks/testing";
import { handleCodeStep, handleEmailStep, handleSignOut, handleTermsStep } from "./forms";
import { resolveSession } from "./service";
import { latestSignInCode, uniqueIp } from "./testing";

const APP = "http://127.0.0.1:3999";
setTestEnv({ APP_URL: APP });

/** A browser's cookie jar, enough for these forms: name -> value, cleared by Max-Age=0. */
class Jar {
  values = new Map<string, string>();
  /** The client address this browser's requests come from. */
  ip = uniqueIp();
  store(response: Response): string[] {
    const cookies = response.headers.getSetCookie();
    for (const cookie of cookies) {
      const [pair = ""] = cookie.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      if (/Max-Age=0/.test(cookie)) this.values.delete(name);
      else this.values.set(name, pair.slice(eq + 1));
    }
    return cookies;
  }
  header(): string {
    return [...this.values].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

function post(path: string, fields: Record<string, string>, jar: Jar, headers: Record<string, string> = {}) {
  return new Request(`${APP}${path}`, {
    method: "POST",
    headers: {
      origin: APP,
      cookie: jar.header(),
      "x-forwarded-for": jar.ip,
      ...headers,
    },
    body: new URLSearchParams(fields),
  });
}

async function signUp(jar: Jar, email: string, next?: string) {
  const sent = await handleEmailStep(post("/signin/email", next ? { email, next } : { email }, jar));
  jar.store(sent);
  const code = (await latestSignInCode(email)) ?? "";
  const signedIn = await handleCodeStep(post("/signin/code", { code }, jar));
  return { sent, signedIn, cookies: jar.store(signedIn) };
}

describe("sign-in forms", () => {
  afterEach(() => setTestEnv({ APP_URL: APP }));

  it("a request from another site is refused (403) before anything happens", async () => {
    const email = uniqueEmail("csrf");
    const jar = new Jar();
    for (const origin of ["https://evil.example", "null"]) {
      const res = await handleEmailStep(post("/signin/email", { email }, jar, { origin }));
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/another site/);
    }
    const noOrigin = new Request(`${APP}/signin/email`, {
      method: "POST",
      body: new URLSearchParams({ email }),
    });
    expect((await handleEmailStep(noOrigin)).status).toBe(403);
    expect(await listOutbox(await dbReady(), { to: email })).toEqual([]);
  });

  it("the email step keeps the address in an httpOnly cookie scoped to /signin; the code step sets the session cookie", async () => {
    const jar = new Jar();
    const { sent, signedIn, cookies } = await signUp(jar, uniqueEmail("forms"));
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe("/signin");
    const pending = sent.headers.getSetCookie()[0] ?? "";
    expect(pending).toMatch(/^marea_signin=/);
    expect(pending).toContain("Path=/signin");
    expect(pending).toContain("HttpOnly");

    expect(signedIn.status).toBe(303);
    // A new account has not accepted the terms yet.
    expect(signedIn.headers.get("location")).toBe("/signin/terms?next=%2Fdashboard");
    const session = cookies.find((c) => c.startsWith("marea_session=")) ?? "";
    expect(session).toMatch(/^marea_session=[0-9a-f]{64}; Path=\/; Max-Age=2592000; SameSite=Lax; HttpOnly$/);
    expect(cookies.some((c) => c.startsWith("marea_signin=;") && c.includes("Max-Age=0"))).toBe(true);
    const token = jar.values.get("marea_session") ?? "";
    expect(await resolveSession(await dbReady(), token, new Date())).not.toBeNull();
  });

  it("the session cookie is Secure when APP_URL is https", async () => {
    setTestEnv({ APP_URL: "https://marea.example" });
    const jar = new Jar();
    const email = uniqueEmail("secure");
    jar.store(
      await handleEmailStep(post("/signin/email", { email }, jar, { origin: "https://marea.example" })),
    );
    const code = (await latestSignInCode(email)) ?? "";
    const res = await handleCodeStep(
      post("/signin/code", { code }, jar, { origin: "https://marea.example" }),
    );
    // On https the session cookie carries the __Host- prefix (docs/security.md, "Sessions").
    expect(res.headers.getSetCookie().find((c) => c.startsWith("__Host-marea_session="))).toMatch(
      /; Secure$/,
    );
  });

  it("`next` survives the steps when it is a same-site path, and is dropped when it is not", async () => {
    const kept = await signUp(new Jar(), uniqueEmail("next"), "/dashboard/keys?tab=user");
    expect(kept.signedIn.headers.get("location")).toBe(
      `/signin/terms?next=${encodeURIComponent("/dashboard/keys?tab=user")}`,
    );
    const dropped = await signUp(new Jar(), uniqueEmail("next"), "//evil.example/phish");
    expect(dropped.signedIn.headers.get("location")).toBe("/signin/terms?next=%2Fdashboard");

    // The terms step never redirects off-site either.
    const jar = new Jar();
    await signUp(jar, uniqueEmail("terms"));
    const terms = await handleTermsStep(
      post("/signin/terms/accept", { version: currentTerms().version, next: "https://evil.example" }, jar),
    );
    expect(terms.headers.get("location")).toBe("/dashboard");
  });

  it("a wrong code goes back to the code step with the error for the code field", async () => {
    const jar = new Jar();
    const email = uniqueEmail("wrong");
    jar.store(await handleEmailStep(post("/signin/email", { email }, jar)));
    const code = (await latestSignInCode(email)) ?? "";
    const res = await handleCodeStep(
      post("/signin/code", { code: code === "000000" ? "111111" : "000000" }, jar),
    );
    expect(res.headers.get("location")).toBe("/signin?error=invalid_sign_in_code&param=code");
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it("an invalid address goes back to the email step with the error for the email field", async () => {
    const res = await handleEmailStep(post("/signin/email", { email: "nope" }, new Jar()));
    expect(res.headers.get("location")).toBe("/signin?step=email&error=invalid_email_address&param=email");
  });

  it("sign-out deletes the session and clears the cookie; a foreign sign-out is refused", async () => {
    const jar = new Jar();
    await signUp(jar, uniqueEmail("signout"));
    const token = jar.values.get("marea_session") ?? "";
    const foreign = await handleSignOut(post("/signout", {}, jar, { origin: "https://evil.example" }));
    expect(foreign.status).toBe(403);
    expect(await resolveSession(await dbReady(), token, new Date())).not.toBeNull();

    const res = await handleSignOut(post("/signout", {}, jar));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/signin?signedout=1");
    expect(res.headers.getSetCookie()[0]).toMatch(/^marea_session=; Path=\/; Max-Age=0/);
    expect(await resolveSession(await dbReady(), token, new Date())).toBeNull();
  });

  it("sign-out right after cancelling the account (after=cancelled) lands on /signin saying so", async () => {
    const jar = new Jar();
    await signUp(jar, uniqueEmail("cancelled"));
    const res = await handleSignOut(post("/signout", { after: "cancelled" }, jar));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/signin?cancelled=1");
    expect(res.headers.getSetCookie()[0]).toMatch(/^marea_session=; Path=\/; Max-Age=0/);
  });
});
