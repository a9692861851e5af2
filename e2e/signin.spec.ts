import { type Api, checkA11y, expect, runCli, screenshot, test, uniqueEmail } from "./support/fixtures";

test.describe("sign-in through a mailed code", () => {
  test("a new person signs up with the mailed code, accepts the terms and lands on /dashboard", async ({
    page,
    mail,
  }) => {
    const email = uniqueEmail("newcomer");
    await page.goto("/signin");
    await expect(page).toHaveTitle("Sign in · Marea");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await checkA11y(page);
    await screenshot(page, "signin-1-email");

    await page.getByLabel("Email address").fill(email);
    const since = Date.now() - 1000;
    await page.getByRole("button", { name: "Send code" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Check your email" })).toBeVisible();
    await expect(page.getByText(`We sent a 6-digit code to ${email}.`)).toBeVisible();
    const codeInput = page.getByLabel("6-digit code");
    await expect(codeInput).toHaveAttribute("autocomplete", "one-time-code");
    await expect(codeInput).toBeFocused();
    await checkA11y(page);
    await screenshot(page, "signin-2-code");

    const codeMail = await mail.waitForMail(email, since);
    expect(codeMail.subject).toMatch(/^Your Marea sign-in code: \d{6}$/);
    const code = await mail.waitForCode(email, since);
    await codeInput.fill(code);
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.waitForURL(/\/signin\/terms\?next=%2Fdashboard$/);
    await expect(page.getByRole("heading", { level: 1, name: "Terms of service" })).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "signin-4-terms");
    await page.getByRole("button", { name: "Accept and continue" }).click();

    await page.waitForURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    await expect(page.getByTestId("shell-email")).toContainText(email);
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    await expect(nav.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
    await expect(nav.getByRole("link", { name: "Storefronts" })).not.toHaveAttribute("aria-current", "page");
    // A new merchant holds no developer keys.
    await expect(nav.getByRole("link", { name: "Developers" })).toHaveCount(0);

    const session = (await page.context().cookies()).find((c) => c.name === "marea_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/", secure: false });
    expect(session?.value).toMatch(/^[0-9a-f]{64}$/);
    // A signed-in visit to /signin goes straight back to the dashboard.
    await page.goto("/signin");
    await page.waitForURL(/\/dashboard$/);
  });

  test("a wrong code shows the error next to the code field", async ({ page, mail }) => {
    const email = uniqueEmail("typo");
    await page.goto("/signin");
    await page.getByLabel("Email address").fill(email);
    const since = Date.now() - 1000;
    await page.getByRole("button", { name: "Send code" }).click();
    const code = await mail.waitForCode(email, since);
    await page.getByLabel("6-digit code").fill(code === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Sign in" }).click();

    const codeInput = page.getByLabel("6-digit code");
    await expect(codeInput).toHaveAttribute("aria-invalid", "true");
    await expect(codeInput).toHaveAccessibleDescription(/That code is not right/);
    await expect(page.locator("#code-error")).toHaveText(/That code is not right/);
    await checkA11y(page);
    await screenshot(page, "signin-3-code-error");

    // The right code still works (one wrong try of five).
    await codeInput.fill(code);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/signin\/terms/);
  });

  test("an invalid address is refused next to the email field, in the interface language", async ({
    page,
  }) => {
    await page.goto("/signin");
    await page.getByTestId("language-switcher").locator("summary").click();
    await page.getByRole("button", { name: "Español" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Entra en Marea" })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "es");
    await page.getByLabel("Correo electrónico").fill("no-es-un-correo");
    await page.getByRole("button", { name: "Enviar código" }).click();
    await expect(page.getByLabel("Correo electrónico")).toHaveAccessibleDescription(
      /Escribe un correo electrónico válido/,
    );
    await expect(page.getByLabel("Correo electrónico")).toHaveValue("no-es-un-correo");
    await checkA11y(page);
    await screenshot(page, "signin-1-email-error-es");
  });

  test("too many code requests from one address are refused with a friendly message", async ({
    page,
    request,
    clientIp,
  }) => {
    // Ten requests an hour per client IP; the page and `request` share this test's X-Forwarded-For.
    for (let i = 0; i < 10; i++) {
      const res = await request.post("/signin/email", {
        form: { email: uniqueEmail("burst") },
        headers: { origin: process.env.E2E_BASE_URL ?? "", "x-forwarded-for": clientIp },
        maxRedirects: 0,
      });
      expect(res.status()).toBe(303);
      expect(res.headers().location).toBe("/signin");
    }
    await page.goto("/signin?step=email");
    await page.getByLabel("Email address").fill(uniqueEmail("burst"));
    await page.getByRole("button", { name: "Send code" }).click();
    await expect(page.getByLabel("Email address")).toHaveAccessibleDescription(
      /Too many sign-in attempts\. Please wait a little and try again\. Try again in about \d+ min\./,
    );
  });
});

test.describe("getting there and back", () => {
  test("a signed-out visitor is sent to /signin and, once signed in, comes back to the page asked for", async ({
    page,
    mail,
  }) => {
    await page.goto("/dashboard?view=compact");
    await page.waitForURL(/\/signin\?next=%2Fdashboard%3Fview%3Dcompact$/);
    const email = uniqueEmail("returning");
    await page.getByLabel("Email address").fill(email);
    const since = Date.now() - 1000;
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByLabel("6-digit code").fill(await mail.waitForCode(email, since));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Accept and continue" }).click();
    await page.waitForURL(/\/dashboard\?view=compact$/);
  });

  test("an off-site `next` is ignored", async ({ page, mail }) => {
    const email = uniqueEmail("phished");
    await page.goto("/signin?next=//evil.example/steal");
    await page.getByLabel("Email address").fill(email);
    const since = Date.now() - 1000;
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByLabel("6-digit code").fill(await mail.waitForCode(email, since));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Accept and continue" }).click();
    await page.waitForURL(/\/dashboard$/);
    expect(new URL(page.url()).host).toBe(new URL(process.env.E2E_BASE_URL ?? "").host);
  });

  test("a new code can be asked for, but no second mail goes out within the minute", async ({
    page,
    mail,
  }) => {
    const email = uniqueEmail("impatient");
    await page.goto("/signin");
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Send code" }).click();
    await mail.waitForMail(email);
    await page.getByRole("button", { name: "Send a new code" }).click();
    await expect(page.getByRole("status")).toContainText("Use the code in the newest mail.");
    await expect(page.getByLabel("6-digit code")).toBeFocused();
    // Give a mail the time to arrive if one (wrongly) went out.
    await page.waitForTimeout(1500);
    expect(await mail.list(email)).toHaveLength(1);
  });
});

test.describe("an address a developer partner registered", () => {
  async function developerWithEndpoint(
    api: Api,
    receiverUrl: string,
  ): Promise<{ key: string; keyId: string; secret: string }> {
    const created = await runCli(["dev-key", "create", "--email", uniqueEmail("partner")]);
    const key = created.key as string;
    const endpoint = await api<{ signingSecret: string }>("POST", "/v1/webhook_endpoints", {
      key,
      body: { url: receiverUrl, subscribedEvents: ["user.verified", "user.cancelled"] },
    });
    expect(endpoint.status).toBe(201);
    return { key, keyId: created.keyId as string, secret: endpoint.body.signingSecret };
  }

  test("continue with it: the account is verified, the partner gets a signed user.verified", async ({
    page,
    signIn,
    api,
    receiver,
  }) => {
    const developer = await developerWithEndpoint(api, receiver.url);
    const email = uniqueEmail("merchant");
    const bootstrapped = await api<{ user: { id: string }; userKey: string }>("POST", "/v1/users", {
      key: developer.key,
      body: { email, language: "en" },
    });
    expect(bootstrapped.status).toBe(201);
    const userId = bootstrapped.body.user.id;

    await signIn(page, email, { expectChoice: true });
    await expect(page.getByText(`A developer partner created an account for ${email}`)).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "signin-3-choose");
    // Nothing has changed yet.
    expect(
      (await api<{ account: { status: string } }>("GET", "/v1/me", { key: bootstrapped.body.userKey })).body,
    ).toMatchObject({ account: { status: "unverified" } });

    await page.getByRole("button", { name: "Continue with this account" }).click();
    // Continuing accepts the current terms, as POST /v1/me/verify does: no terms step.
    await page.waitForURL(/\/dashboard$/);
    const me = await api<{ account: { id: string; status: string }; scopes: string[] }>("GET", "/v1/me", {
      key: bootstrapped.body.userKey,
    });
    expect(me.body.account).toMatchObject({ id: userId, status: "verified" });
    expect(me.body.scopes).toContain("storefront:publish");

    await receiver.waitFor((requests) => requests.some((r) => r.rawBody.includes('"user.verified"')));
    const delivery = receiver.requests.find((r) => r.rawBody.includes('"user.verified"'));
    expect(delivery && receiver.isSignedWith(delivery, developer.secret)).toBe(true);
    expect(JSON.parse(delivery?.rawBody ?? "{}")).toMatchObject({
      type: "user.verified",
      data: { userId, developerKeyId: developer.keyId },
    });
  });

  test("start a new account: the partner's account is cancelled (squatting_defense) and a new one signs in", async ({
    page,
    signIn,
    api,
    receiver,
  }) => {
    const developer = await developerWithEndpoint(api, receiver.url);
    const email = uniqueEmail("merchant");
    const bootstrapped = await api<{ user: { id: string }; userKey: string }>("POST", "/v1/users", {
      key: developer.key,
      body: { email, language: "en" },
    });
    const userId = bootstrapped.body.user.id;

    await signIn(page, email, { expectChoice: true });
    await page.getByRole("button", { name: "Start a new account" }).click();
    await page.waitForURL(/\/signin\/terms/);
    await page.getByRole("button", { name: "Accept and continue" }).click();
    await page.waitForURL(/\/dashboard$/);
    await expect(page.getByTestId("shell-email")).toContainText(email);

    const old = await api<{ error: { code: string } }>("GET", "/v1/me", { key: bootstrapped.body.userKey });
    expect(old.status).toBe(403);
    expect(old.body.error.code).toBe("account_cancelled");
    await receiver.waitFor((requests) => requests.some((r) => r.rawBody.includes('"user.cancelled"')));
    const delivery = receiver.requests.find((r) => r.rawBody.includes('"user.cancelled"'));
    expect(delivery && receiver.isSignedWith(delivery, developer.secret)).toBe(true);
    expect(JSON.parse(delivery?.rawBody ?? "{}").data).toMatchObject({ userId, reason: "squatting_defense" });
  });
});

test.describe("signing out and cross-site requests", () => {
  test("after sign-out the old cookie no longer opens the dashboard", async ({ page, signIn, browser }) => {
    await signIn(page, uniqueEmail("leaver"));
    const cookie = (await page.context().cookies()).find((c) => c.name === "marea_session");
    expect(cookie).toBeDefined();

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/signin\?signedout=1$/);
    await expect(page.getByRole("status")).toHaveText("You have signed out.");
    await checkA11y(page);

    // The same cookie, replayed from another browser context.
    const replay = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
    if (cookie) await replay.addCookies([cookie]);
    const replayPage = await replay.newPage();
    await replayPage.goto("/dashboard");
    await replayPage.waitForURL(/\/signin\?next=%2Fdashboard$/);
    await expect(replayPage.getByRole("heading", { level: 1, name: "Sign in to Marea" })).toBeVisible();
    await replay.close();
  });

  test("a POST with a foreign Origin is refused and changes nothing", async ({
    page,
    signIn,
    mail,
    request,
  }) => {
    const email = uniqueEmail("target");
    const foreign = await request.post("/signin/email", {
      form: { email },
      headers: { origin: "https://evil.example" },
      maxRedirects: 0,
    });
    expect(foreign.status()).toBe(403);
    expect(await foreign.text()).toBe("The request came from another site and was refused.");
    expect(await mail.list(email)).toEqual([]);

    await signIn(page, uniqueEmail("victim"));
    const cookie = (await page.context().cookies()).find((c) => c.name === "marea_session");
    const signOut = await request.post("/signout", {
      headers: { origin: "https://evil.example", cookie: `marea_session=${cookie?.value}` },
      maxRedirects: 0,
    });
    expect(signOut.status()).toBe(403);
    // Still signed in.
    await page.goto("/dashboard");
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  });
});
