import type { Page } from "@playwright/test";
import { checkA11y, expect, runCli, screenshot, test, uniqueEmail } from "./support/fixtures";

// The dashboard's webhook pages (docs/ui.md, "Webhooks"; docs/webhooks.md): endpoints, the delivery log with its
// live refresh, Send test event, Resend, pause and rotate, against the local receiver. The suite's server runs
// with WEBHOOK_RETRY_SCHEDULE=0s,2s,4s, so three attempts take about four seconds.

/** Adds a merchant endpoint through the form; returns its signing secret (shown this once). */
async function addEndpoint(page: Page, url: string): Promise<string> {
  await page.goto("/dashboard/webhooks/new");
  await page.getByLabel("Endpoint URL").fill(url);
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const created = page.getByTestId("endpoint-created");
  await expect(created.getByText("Endpoint added")).toBeVisible();
  const secret = (await created.locator("pre code").textContent()) ?? "";
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  await created.getByRole("link", { name: "Open the endpoint" }).click();
  await page.waitForURL(/\/dashboard\/webhooks\/mk_we_[0-9a-f]{16}$/);
  return secret;
}

async function sendTestEvent(page: Page, type = "order.created"): Promise<void> {
  await page.getByLabel("Event type", { exact: true }).first().selectOption(type);
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(page.getByText(/Test event sent \(/)).toBeVisible();
}

const rows = (page: Page) => page.getByTestId("delivery-row");

test.describe("dashboard: webhook endpoints and the delivery log", () => {
  test("create an endpoint to the local receiver, send a test event and watch it arrive with the receiver's status (spec: dashboard send test event fires)", async ({
    page,
    signIn,
    receiver,
  }) => {
    receiver.statusFor = () => 202;
    await signIn(page, uniqueEmail("hooks"));
    await page.goto("/dashboard/webhooks");
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
    await expect(page.getByText("No endpoints yet")).toBeVisible();
    await checkA11y(page);

    // The URL rules are shown on the URL field, with the catalogue's message (same code as /v1).
    await page.goto("/dashboard/webhooks/new");
    await page.getByLabel("Endpoint URL").fill("https://10.0.0.8/hook");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const url = page.getByLabel("Endpoint URL");
    await expect(url).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("The webhook URL is not allowed.")).toBeVisible();
    await checkA11y(page);
    await screenshot(page, "webhooks-new");

    const secret = await addEndpoint(page, receiver.url);
    await expect(page.getByText("No deliveries yet")).toBeVisible();
    await sendTestEvent(page);
    // The new delivery appears and its result arrives without a reload.
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toHaveAttribute("data-status", "delivered");
    await expect(rows(page).first().getByTestId("delivery-http")).toHaveText("202");
    await receiver.waitFor((requests) => requests.length === 1);
    const [received] = receiver.requests;
    expect(received && receiver.isSignedWith(received, secret)).toBe(true);
    await expect(page.getByTestId("endpoint-health")).toContainText("Attempts: 1, 100% succeeded.");
    await checkA11y(page);
    await screenshot(page, "webhooks-endpoint");

    // The detail shows the exact request: every header as received, the body, the receiver's answer.
    await rows(page)
      .first()
      .getByRole("button", { name: /View delivery/ })
      .click();
    const detail = page.getByTestId("delivery-detail");
    const headers = detail.getByTestId("request-headers");
    await expect(headers.getByRole("row", { name: /X-Service-Signature/ })).toContainText(
      String(received?.headers["x-service-signature"]),
    );
    await expect(headers.getByRole("row", { name: /X-Service-Event-Id/ })).toContainText(
      String(received?.headers["x-service-event-id"]),
    );
    await expect(detail.getByTestId("body-pretty")).toContainText('"__test": true');
    await detail.getByRole("button", { name: "Raw bytes" }).click();
    await expect(detail.getByTestId("body-raw")).toHaveText(received?.rawBody ?? "");
    await expect(detail.getByTestId("attempt-status")).toHaveText("202");
    await expect(detail.getByText(secret)).toHaveCount(0);
    await checkA11y(page);
    await screenshot(page, "webhooks-delivery");
    await page.keyboard.press("Escape");

    // The list shows the last delivery, failures in a row and the 24-hour success bar.
    await page.goto("/dashboard/webhooks");
    const listed = page.getByTestId("endpoints").getByRole("row").nth(1);
    await expect(listed).toContainText(receiver.url);
    await expect(listed).toContainText("Merchant");
    await expect(listed).toContainText("Succeeded");
    await expect(listed).toContainText("100% of attempts (1)");
    await checkA11y(page);
    await screenshot(page, "webhooks-list");
  });

  test("a failing receiver gets three attempts; after it recovers, Resend delivers the same eventId (spec: 3 attempts, then max_attempts_reached)", async ({
    page,
    signIn,
    receiver,
  }) => {
    let failing = true;
    receiver.statusFor = () => (failing ? 500 : 200);
    await signIn(page, uniqueEmail("hooks-fail"));
    await addEndpoint(page, receiver.url);
    await sendTestEvent(page, "order.paid");
    await expect(page.getByTestId("log-live")).toHaveText("Updating while deliveries are pending.");
    await expect(rows(page).first()).toHaveAttribute("data-status", "max_attempts_reached", {
      timeout: 20_000,
    });
    await expect(rows(page).first().getByTestId("delivery-attempts")).toHaveText("3");
    await expect(rows(page).first().getByTestId("delivery-http")).toHaveText("500");
    expect(receiver.requests).toHaveLength(3);

    await rows(page)
      .first()
      .getByRole("button", { name: /View delivery/ })
      .click();
    const detail = page.getByTestId("delivery-detail");
    await expect(detail.getByTestId("attempts").getByRole("listitem")).toHaveCount(3);
    await expect(detail.getByTestId("attempt-status")).toHaveText(["500", "500", "500"]);

    failing = false;
    await detail.getByRole("button", { name: "Resend" }).click();
    // The dialog follows the new delivery, which is delivered without a reload.
    await expect(detail.getByTestId("attempt-status")).toHaveText(["200"]);
    await page.keyboard.press("Escape");
    await expect(rows(page)).toHaveCount(2);
    await expect(rows(page).first()).toHaveAttribute("data-status", "delivered");
    await expect(rows(page).first()).toContainText("resend");
    const eventIds = receiver.events().map((e) => e.eventId);
    expect(eventIds).toHaveLength(4);
    expect(new Set(eventIds).size).toBe(1);
  });

  test("a paused endpoint receives nothing: the test fire is refused and no delivery appears (spec: paused endpoints)", async ({
    page,
    signIn,
    receiver,
  }) => {
    await signIn(page, uniqueEmail("hooks-pause"));
    await addEndpoint(page, receiver.url);
    await page.getByRole("button", { name: "Pause" }).click();
    await expect(page.getByTestId("endpoint-state")).toHaveText("Paused");
    await page.getByLabel("Event type", { exact: true }).first().selectOption("order.created");
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("region", { name: "Send a test event" }).getByRole("alert")).toContainText(
      "The webhook endpoint is paused.",
    );
    await page.reload();
    await expect(page.getByTestId("endpoint-state")).toHaveText("Paused");
    await expect(page.getByText("No deliveries yet")).toBeVisible();
    expect(receiver.requests).toHaveLength(0);
    await page.getByRole("button", { name: "Resume" }).click();
    await expect(page.getByTestId("endpoint-state")).toHaveText("Enabled");
  });

  test("rotating shows the new secret once; the receiver verifies with it and no longer with the old one (spec: rotate, no overlap)", async ({
    page,
    signIn,
    receiver,
  }) => {
    await signIn(page, uniqueEmail("hooks-rotate"));
    const oldSecret = await addEndpoint(page, receiver.url);
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Rotate the signing secret?" });
    await checkA11y(page);
    await confirm.getByRole("button", { name: "Rotate secret" }).click();
    const shown = page.getByTestId("rotated-secret");
    await expect(shown).toContainText("version 2");
    const newSecret = (await shown.locator("pre code").textContent()) ?? "";
    expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(newSecret).not.toBe(oldSecret);
    await expect(page.getByTestId("secret-version")).toHaveText("2");

    await sendTestEvent(page);
    await receiver.waitFor((requests) => requests.length === 1);
    const [request] = receiver.requests;
    if (!request) throw new Error("no request");
    expect(receiver.isSignedWith(request, newSecret)).toBe(true);
    expect(receiver.isSignedWith(request, oldSecret)).toBe(false);
    expect(request.headers["x-service-signing-version"]).toBe("2");

    // Shown once: a reload does not bring it back.
    await page.reload();
    await expect(page.getByTestId("rotated-secret")).toHaveCount(0);
    await expect(page.getByText(newSecret)).toHaveCount(0);

    // Delete, behind a confirmation.
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(/\/dashboard\/webhooks$/);
    await expect(page.getByText("No endpoints yet")).toBeVisible();
  });
});

test.describe('dashboard: marea listen sessions (docs/webhooks.md, "Local development: marea listen")', () => {
  test("the webhooks page lists the account's listen sessions and Close closes one (its stream then answers 410)", async ({
    page,
    signIn,
    api,
  }) => {
    // Sign-in, two accessibility checks and screenshots at two widths: slow on a loaded machine.
    test.slow();
    const email = uniqueEmail("listener");
    const developer = (await runCli(["dev-key", "create", "--email", email])) as { key: string };
    await signIn(page, email);
    await page.goto("/dashboard/webhooks");
    const section = page.getByTestId("listen-sessions");
    await expect(section.getByRole("heading", { name: "Listen sessions (marea listen)" })).toBeVisible();
    await expect(
      section.getByText("npx marea listen --forward-to http://localhost:4000/hooks"),
    ).toBeVisible();

    const opened = await api<{ session: { id: string } }>("POST", "/v1/listen_sessions", {
      key: developer.key,
      body: { forwardTo: "http://localhost:4000/hooks", events: ["order.created", "order.paid"] },
    });
    expect(opened.status).toBe(201);
    const sessionId = opened.body.session.id;
    await page.reload();
    const row = section.getByTestId("listen-session");
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(sessionId);
    await expect(row).toContainText("http://localhost:4000/hooks");
    // Opened, no stream connected yet: the CLI would be reconnecting.
    await expect(row).toHaveAttribute("data-state", "waiting");
    await checkA11y(page);
    await screenshot(page, "webhooks-listen-sessions");

    await row.getByRole("button", { name: `Close session ${sessionId}` }).click();
    await expect(section.getByText(`Session ${sessionId} closed`)).toBeVisible();
    await expect(row).toHaveAttribute("data-state", "closed");
    await expect(row).toContainText("closed here");
    const stream = await api("GET", `/v1/listen_sessions/${sessionId}/stream`, { key: developer.key });
    expect(stream.status).toBe(410);
    await checkA11y(page);
  });
});
