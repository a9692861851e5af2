import { expect, runCli, test, uniqueEmail } from "./support/fixtures";

// The harness itself, so later browser issues can lean on it: the app runs with short webhook retries
// (0 s, 2 s, 4 s) and may deliver to the loopback receiver, whose answers each test programs.
test("the webhook receiver answers as programmed, and the app retries a failed delivery with the same signed event", async ({
  api,
  receiver,
}) => {
  const { key } = (await runCli(["dev-key", "create", "--email", uniqueEmail("harness")])) as { key: string };
  const endpoint = await api<{ endpointId: string; signingSecret: string }>("POST", "/v1/webhook_endpoints", {
    key,
    body: { url: receiver.url, subscribedEvents: ["order.created"] },
  });
  expect(endpoint.status).toBe(201);

  receiver.statusFor = (_request, index) => (index === 0 ? 503 : 200);
  const fired = await api<{ eventId: string }>(
    "POST",
    `/v1/webhook_endpoints/${endpoint.body.endpointId}/test`,
    {
      key,
      body: { type: "order.created" },
    },
  );
  expect(fired.status).toBe(202);

  await receiver.waitFor((requests) => requests.length >= 2);
  const [first, second] = receiver.requests;
  expect([first?.status, second?.status]).toEqual([503, 200]);
  expect(second?.rawBody).toBe(first?.rawBody);
  expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1500);
  for (const request of [first, second]) {
    expect(request && receiver.isSignedWith(request, endpoint.body.signingSecret)).toBe(true);
    expect(request?.headers["x-service-event-type"]).toBe("order.created");
  }
  expect(receiver.events()[0]).toMatchObject({ type: "order.created", eventId: fired.body.eventId });
  // A wrong secret does not verify.
  expect(first && receiver.isSignedWith(first, "0".repeat(64))).toBe(false);
});
