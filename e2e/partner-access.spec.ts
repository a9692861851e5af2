import { checkA11y, expect, runCli, screenshot, test, uniqueEmail } from "./support/fixtures";

// docs/ui.md, "Account"; docs/api.md, "Partner access" (security finding M6): once the owner of an account a
// developer partner bootstrapped signs in, the partner can no longer issue keys for it until the owner allows it
// on the account page; the owner can take the access away again.

test.describe("partner access on the account page", () => {
  test("M6: the owner signs in, the partner is refused new keys; allowing and turning off from the account page", async ({
    page,
    signIn,
    api,
  }) => {
    const partner = await runCli([
      "dev-key",
      "create",
      "--email",
      uniqueEmail("partner"),
      "--name",
      "Tienda Pro",
    ]);
    const partnerKey = partner.key as string;
    const email = uniqueEmail("owner");
    const bootstrapped = await api<{ user: { id: string } }>("POST", "/v1/users", {
      key: partnerKey,
      body: { email, language: "en" },
    });
    expect(bootstrapped.status).toBe(201);
    const userId = bootstrapped.body.user.id;
    const issue = () =>
      api<{ error?: { code: string } }>("POST", `/v1/users/${userId}/keys`, { key: partnerKey, body: {} });
    expect((await issue()).status).toBe(201);

    await signIn(page, email, { expectChoice: true });
    await page.getByRole("button", { name: "Continue with this account" }).click();
    await page.waitForURL(/\/dashboard$/);
    const refused = await issue();
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe("partner_access_off");

    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Account" }).click();
    const section = page.getByTestId("partner-access");
    await expect(section.getByRole("heading", { name: "Partner access" })).toBeVisible();
    await expect(section).toContainText("A developer partner, Tienda Pro");
    await expect(page.getByTestId("partner-access-state")).toHaveText(
      "Off: the partner cannot create new API keys for this account.",
    );
    await expect(section).toContainText("Keys the partner holds for this account: 2.");
    await checkA11y(page);
    await screenshot(page, "dashboard-account-partner-access");

    await section.getByRole("button", { name: "Allow partner access" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Allow partner access?" });
    await expect(confirm).toContainText("Tienda Pro will be able to create API keys for this account");
    await checkA11y(page);
    await confirm.getByRole("button", { name: "Allow access" }).click();
    await expect(page.getByTestId("partner-access-state")).toHaveText(
      "On: the partner may create new API keys for this account.",
    );
    expect((await issue()).status).toBe(201);

    await section.getByRole("button", { name: "Turn off partner access" }).click();
    await expect(page.getByTestId("partner-access-state")).toHaveText(
      "Off: the partner cannot create new API keys for this account.",
    );
    expect((await issue()).status).toBe(403);
  });

  test("M6: the partner section speaks the interface language (es, pt)", async ({ page, signIn, api }) => {
    const partner = await runCli(["dev-key", "create", "--email", uniqueEmail("partner")]);
    const email = uniqueEmail("owner");
    await api("POST", "/v1/users", { key: partner.key as string, body: { email, language: "es" } });
    await signIn(page, email, { expectChoice: true });
    await page.getByRole("button", { name: "Continue with this account" }).click();
    await page.waitForURL(/\/dashboard$/);
    for (const [lang, title, state] of [
      [
        "es",
        "Acceso del socio",
        "Desactivado: el socio no puede crear nuevas claves de API para esta cuenta.",
      ],
      [
        "pt",
        "Acesso do parceiro",
        "Desativado: o parceiro não pode criar novas chaves de API para esta conta.",
      ],
    ] as const) {
      await page
        .context()
        .addCookies([{ name: "marea_lang", value: lang, url: process.env.E2E_BASE_URL ?? "" }]);
      await page.goto("/dashboard/account");
      await expect(page.getByTestId("partner-access").getByRole("heading", { name: title })).toBeVisible();
      await expect(page.getByTestId("partner-access-state")).toHaveText(state);
    }
  });
});
