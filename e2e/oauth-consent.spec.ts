import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkA11y, expect, screenshot, test, uniqueEmail } from "./support/fixtures";

// docs/mcp.md, "Consent" and "Connected apps": the consent page a person sees when an MCP client asks for access,
// the error page for a request that cannot go back to the client, and the connected-apps list with Disconnect.

// The client's redirect URI: a local listener, as a native app runs one (a redirect cannot be intercepted).
let CALLBACK = "";
let listener: Server;

test.beforeAll(async () => {
  listener = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>Back in the app</title><p>Back in the app.</p>");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  CALLBACK = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
});

test.afterAll(async () => {
  listener.closeAllConnections();
  await new Promise((resolve) => listener.close(resolve));
});

async function registerClient(baseUrl: string, name: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": `198.19.${randomBytes(1)[0]}.7` },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [CALLBACK],
      client_uri: "https://claude.example.com",
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

function authorizePath(clientId: string, scope = "marea.read marea.write marea.publish"): string {
  const verifier = randomBytes(32).toString("base64url");
  return `/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CALLBACK,
    scope,
    state: "browser-state",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: `${process.env.E2E_BASE_URL}/mcp`,
  })}`;
}

test.describe("OAuth consent in the dashboard", () => {
  test("a signed-in person sees who asks for what, allows it, and can disconnect the app", async ({
    page,
    signIn,
    baseURL,
  }) => {
    await signIn(page, uniqueEmail("consent"));
    const clientId = await registerClient(baseURL ?? "", "Claude Desktop");

    const response = await page.goto(authorizePath(clientId));
    await page.waitForURL(/\/dashboard\/oauth\/consent\?request=oar_/);
    // Two policies, both enforced: next.config.ts's framing rule, and the page policy every page gets
    // (docs/security.md, "Headers"), which leaves form-action open here for the redirect to the client.
    const policies = ((await response?.headersArray()) ?? [])
      .filter((header) => header.name.toLowerCase() === "content-security-policy")
      .map((header) => header.value);
    expect(policies).toContain("frame-ancestors 'none'");
    const pagePolicy = policies.find((policy) => policy.includes("'nonce-"));
    expect(pagePolicy).toContain("frame-ancestors 'none'");
    expect(pagePolicy).not.toContain("form-action");
    expect(response?.headers()["x-frame-options"]).toBe("DENY");
    await expect(page).toHaveTitle("Connect an app · Marea");
    await expect(
      page.getByRole("heading", { level: 1, name: "Allow Claude Desktop to use your Marea account?" }),
    ).toBeVisible();
    await expect(page.getByTestId("consent-app")).toHaveText("Claude Desktop");
    await expect(page.getByTestId("consent-client-host")).toContainText("Registered itself with Marea");
    await expect(page.getByTestId("consent-redirect-host")).toHaveText(new URL(CALLBACK).host);
    const scopes = page.getByTestId("consent-scopes");
    await expect(scopes.getByRole("listitem")).toHaveCount(3);
    await expect(scopes).toContainText("See your storefronts, products, orders and webhook endpoints");
    await expect(scopes).toContainText("Publish and unpublish your storefronts");
    await checkA11y(page);
    await screenshot(page, "oauth-consent");

    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(CALLBACK));
    const answer = new URL(page.url());
    expect(answer.searchParams.get("code")).toMatch(/^mcp_code_/);
    expect(answer.searchParams.get("state")).toBe("browser-state");
    expect(answer.searchParams.get("iss")).toBe(baseURL);

    await page.goto("/dashboard/oauth/apps");
    const row = page.getByTestId("connected-app");
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("Claude Desktop");
    await expect(row.getByText("Connected app")).toBeVisible();
    await expect(row).toContainText("marea.publish");
    await checkA11y(page);
    await screenshot(page, "oauth-connected-apps");

    await row.getByRole("button", { name: "Disconnect Claude Desktop" }).click();
    await expect(page.getByRole("status")).toContainText("The app was disconnected.");
    await expect(page.getByRole("heading", { name: "No apps connected yet" })).toBeVisible();
  });

  test("deny sends access_denied back to the app; a used request cannot be answered again", async ({
    page,
    signIn,
    baseURL,
  }) => {
    await signIn(page, uniqueEmail("deny"));
    const clientId = await registerClient(baseURL ?? "", "Cursor");
    await page.goto(authorizePath(clientId, "marea.read"));
    await page.waitForURL(/\/dashboard\/oauth\/consent/);
    const consentUrl = page.url();
    await expect(page.getByTestId("consent-scopes").getByRole("listitem")).toHaveCount(1);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL((url) => url.href.startsWith(CALLBACK));
    const answer = new URL(page.url());
    expect(answer.searchParams.get("error")).toBe("access_denied");
    expect(answer.searchParams.get("iss")).toBe(baseURL);

    await page.goto(consentUrl);
    await expect(
      page
        .getByRole("alert")
        .filter({ hasText: "This authorization request has expired or was already answered." }),
    ).toBeVisible();
  });

  test("a request that cannot go back to the app explains itself on the error page", async ({ page }) => {
    await page.goto(authorizePath("oac_does_not_exist"));
    await page.waitForURL(/\/oauth\/error\?error=invalid_client/);
    await expect(
      page.getByRole("heading", { level: 1, name: "This app's request cannot be completed" }),
    ).toBeVisible();
    await expect(page.getByTestId("oauth-error-detail")).toContainText("Unknown client_id.");
    await expect(page.getByTestId("oauth-error-code")).toHaveText("Error code: invalid_client");
    await checkA11y(page);
    await screenshot(page, "oauth-error");
  });

  test("L8: the error page shows only catalogue text, never what its query string says", async ({ page }) => {
    const bait = "Your account is suspended, call +1 555 0100";
    await page.goto(
      `/oauth/error?${new URLSearchParams({
        error: "Call +1 555 0100",
        error_description: bait,
        reason: "oauth_made_up",
        detail: bait,
      })}`,
    );
    await expect(
      page.getByRole("heading", { level: 1, name: "This app's request cannot be completed" }),
    ).toBeVisible();
    await expect(page.locator("main")).not.toContainText("555");
    await expect(page.getByTestId("oauth-error-detail")).toHaveCount(0);
    await expect(page.getByTestId("oauth-error-code")).toHaveCount(0);

    // A known reason is shown in the person's language, from the catalogue.
    for (const [language, text] of [
      ["es", "El documento de metadatos de cliente de la aplicación está en un host que no está permitido."],
      ["pt", "O documento de metadados de cliente do aplicativo está em um host que não é permitido."],
      ["en", "The app's client metadata document is on a host that is not allowed."],
    ] as const) {
      await page
        .context()
        .addCookies([{ name: "marea_lang", value: language, url: process.env.E2E_BASE_URL ?? "" }]);
      await page.goto("/oauth/error?error=invalid_client&reason=oauth_client_host_not_allowed");
      await expect(page.getByTestId("oauth-error-detail")).toHaveText(text);
    }
    await checkA11y(page);
    await screenshot(page, "oauth-error-host-not-allowed");
  });
});
