import { checkA11y, expect, runCli, screenshot, test, uniqueEmail } from "./support/fixtures";

// The keys, account, developers and overview pages (docs/ui.md, "API keys", "Account", "Developers",
// "Overview"), signed in through the real mailed code, against the production build on PostgreSQL.

test.describe("API keys, account, developers and overview", () => {
  test("create a user key, shown once, and call /v1/me with it; the overview shows today's order", async ({
    page,
    signIn,
    api,
  }) => {
    const email = uniqueEmail("keys");
    await signIn(page, email);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "API keys" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    await expect(page.getByText("No API keys yet")).toBeVisible();

    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await expect(dialog.getByRole("radio", { name: /User key/ })).toBeChecked();
    await dialog.getByLabel("Name").fill("Till");
    await checkA11y(page);
    await dialog.getByRole("button", { name: "Create key" }).click();
    const created = page.getByTestId("created-key");
    await expect(created.getByRole("heading", { name: "Your new API key" })).toBeVisible();
    const rawKey = (await created.locator("code").textContent())?.trim() ?? "";
    expect(rawKey).toMatch(/^mk_user_[0-9A-Za-z]{43}$/);
    await expect(created.getByRole("button", { name: "Copy key" })).toBeVisible();

    const me = await api<{ keyId: string; account: { email: string; status: string } }>("GET", "/v1/me", {
      key: rawKey,
    });
    expect(me.status).toBe(200);
    expect(me.body.account).toMatchObject({ email, status: "verified" });

    await created.getByRole("button", { name: "I have copied it" }).click();
    const row = page.getByTestId("api-key-row").filter({ hasText: "Till" });
    await expect(row).toContainText("User");
    await expect(row).toContainText("storefront:publish");
    await expect(row).toContainText("Never");
    // Never rendered again: not in the page, not after a reload.
    await expect(page.locator("body")).not.toContainText(rawKey);
    await page.reload();
    await expect(page.getByTestId("api-key-row").filter({ hasText: "Till" })).toContainText(/UTC/);
    expect(await page.content()).not.toContain(rawKey);
    await checkA11y(page);
    await screenshot(page, "dashboard-keys");

    // A storefront and one order through /v1, seen on the overview.
    const storefront = await api<{ storefront: { id: string }; products: Array<{ id: string }> }>(
      "POST",
      "/v1/storefronts",
      {
        key: rawKey,
        body: {
          name: "Tacos Lupita",
          currency: "MXN",
          language: "es",
          products: [{ title: "Taco", price: 25 }],
        },
      },
    );
    expect(storefront.status, JSON.stringify(storefront.body)).toBe(201);
    const order = await api("POST", `/v1/storefronts/${storefront.body.storefront.id}/orders`, {
      key: rawKey,
      body: {
        items: [{ productId: storefront.body.products[0]?.id, amount: 3 }],
        customer: { name: "Ana", phone: "+5215512345678" },
        paymentMethod: { name: "Efectivo" },
      },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Overview" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    const today = page.getByTestId("storefront-today");
    await expect(today).toContainText("Tacos Lupita");
    await expect(today).toContainText("Draft");
    await expect(today).toContainText("75");
    await expect(page.getByTestId("next-steps")).toContainText("Upgrade to Pro to publish your storefronts.");
    await checkA11y(page);
    await screenshot(page, "dashboard-overview");
  });

  test("developers page lists bootstrapped users and issues a key; revoking the developer key shows its cascade first", async ({
    page,
    signIn,
    api,
  }) => {
    const email = uniqueEmail("partner");
    const developer = (await runCli(["dev-key", "create", "--email", email, "--name", "Partner app"])) as {
      key: string;
      keyId: string;
    };
    const users: Array<{ id: string; key: string }> = [];
    for (const label of ["ana", "beto"]) {
      const made = await api<{ user: { id: string }; userKey: string }>("POST", "/v1/users", {
        key: developer.key,
        body: { email: uniqueEmail(label), language: "es" },
      });
      expect(made.status).toBe(201);
      users.push({ id: made.body.user.id, key: made.body.userKey });
    }
    await signIn(page, email);

    // Developers: in the navigation only for accounts holding developer keys.
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    await nav.getByRole("link", { name: "Developers" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Developers" })).toBeVisible();
    const rows = page.getByTestId("partner-user");
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText("Unverified");
    await expect(rows.first()).toContainText("Partner app");
    await page
      .getByRole("navigation", { name: "Status" })
      .getByRole("link", { name: "Verified", exact: true })
      .click();
    await expect(page).toHaveURL(/status=verified/);
    await expect(page.getByText("No accounts with this status.")).toBeVisible();
    await page
      .getByRole("navigation", { name: "Status" })
      .getByRole("link", { name: "Unverified", exact: true })
      .click();
    await expect(rows).toHaveCount(2);
    await checkA11y(page);
    await screenshot(page, "dashboard-developers");

    const first = page.locator(`[data-user-id="${users[0]?.id}"]`);
    await first.getByRole("button", { name: /Issue key for/ }).click();
    const issued = page.getByTestId("issued-key");
    await expect(issued).toBeVisible();
    const userKey = (await issued.locator("code").textContent())?.trim() ?? "";
    expect(userKey).toMatch(/^mk_user_/);
    const asUser = await api<{ account: { id: string } }>("GET", "/v1/me", { key: userKey });
    expect(asUser.status).toBe(200);
    expect(asUser.body.account.id).toBe(users[0]?.id);
    await checkA11y(page);
    await issued.getByRole("button", { name: "I have copied it" }).click();
    await expect(page.getByTestId("issued-key")).toHaveCount(0);

    // The overview shows the developer's deliveries.
    await nav.getByRole("link", { name: "Overview" }).click();
    await expect(page.getByRole("heading", { name: "Webhook deliveries, last 24 hours" })).toBeVisible();
    await expect(page.getByTestId("delivery-totals")).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "dashboard-overview-developer");

    // Revoke the developer key: the preview first, then the cascade.
    await nav.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("button", { name: "Revoke key Partner app" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Revoke Partner app?" });
    await expect(confirm.getByTestId("revoke-description")).toContainText(
      "2 unverified accounts it created will be cancelled (reason key_revoked)",
    );
    await expect(confirm.getByTestId("revoke-description")).toContainText(
      "Order events of the 2 live accounts it created stop reaching your endpoints.",
    );
    await checkA11y(page);
    await screenshot(page, "dashboard-keys-revoke-developer");
    await confirm.getByRole("button", { name: "Revoke key" }).click();
    // exact: the toast's live region announces the same text after "Notification".
    await expect(
      page.getByText("Developer key Partner app revoked; 2 unverified accounts cancelled.", { exact: true }),
    ).toBeVisible();

    const refused = await api<{ error: { code: string } }>("GET", "/v1/me", { key: developer.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("api_key_revoked");
    const cancelled = await api<{ error: { code: string } }>("GET", "/v1/me", { key: users[1]?.key });
    expect(cancelled.body.error.code).toBe("account_cancelled");
    // The account no longer holds developer keys: Developers leaves the navigation.
    await page.waitForLoadState("load");
    await expect(nav.getByRole("link", { name: "Developers" })).toHaveCount(0);
  });

  test("account page: plan and usage, language saved on the account; cancel the account and land on /signin", async ({
    page,
    signIn,
  }) => {
    const email = uniqueEmail("leaver");
    await signIn(page, email);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Account" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Account" })).toBeVisible();
    await expect(page.getByTestId("account-email")).toHaveText(email);
    await expect(page.getByText(/Verified on/)).toBeVisible();
    await expect(page.getByRole("meter", { name: "Storefronts" })).toHaveAttribute("aria-valuemax", "1");
    await expect(page.getByRole("meter", { name: "Products" })).toHaveAttribute("aria-valuemax", "2000");
    await expect(page.getByRole("link", { name: "Upgrade to Pro" })).toHaveAttribute(
      "href",
      /\/dashboard\/billing\?plan=PRO$/,
    );
    await expect(page.getByRole("button", { name: "Sign out everywhere" })).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "dashboard-account");

    await page.getByLabel("Account language").click();
    await page.getByRole("option", { name: "Português" }).click();
    await page.getByRole("button", { name: "Save language" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Conta" })).toBeVisible();
    await page.getByLabel("Idioma da conta").click();
    await page.getByRole("option", { name: "English" }).click();
    await page.getByRole("button", { name: "Salvar idioma" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Account" })).toBeVisible();

    await page.getByRole("button", { name: "Cancel account" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Cancel this account?" });
    await expect(confirm).toContainText(email);
    await checkA11y(page);
    await confirm.getByRole("button", { name: "Cancel account" }).click();
    await page.waitForURL(/\/signin\?cancelled=1/);
    await expect(page.getByText("Your account was cancelled.")).toBeVisible();
    await page.goto("/dashboard/account");
    await expect(page).toHaveURL(/\/signin/);
  });
});
