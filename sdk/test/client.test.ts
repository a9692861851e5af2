import { beforeAll, describe, expect, it } from "vitest";
import { createDeveloper, uniqueEmail } from "@/server/accounts/testing";
import { exampleEnvelope } from "@/server/webhooks/events";
import { signatureHeader } from "@/server/webhooks/verify";
import { handleV1Request } from "@/server/wiring/rest";
import {
  createMareaClient,
  MareaError,
  ok,
  verifyWebhook,
  type WebhookVerificationError,
} from "../src/index.js";

// sdk/README.md: the SDK's conventions against the real /v1 pipeline and database, in-process: its `fetch` option
// hands each Request to the same handler the server runs (`handleV1Request`), with a clock the test controls for
// the per-minute window.

type Sent = { method: string; path: string; idempotencyKey: string | null; status: number };

/** A fetch into the real pipeline that records what the SDK sent; `clock` is the pipeline's time. */
function pipelineFetch(clock: () => Date = () => new Date()) {
  const sent: Sent[] = [];
  const fetch = async (request: Request) => {
    const response = await handleV1Request(request, { now: clock });
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      idempotencyKey: request.headers.get("idempotency-key"),
      status: response.status,
    });
    return response;
  };
  return { fetch, sent };
}

let developerKey: string;

beforeAll(async () => {
  developerKey = (await createDeveloper()).key;
});

describe("typed calls and MareaError", () => {
  it("a call answers its typed data; a failure throws MareaError carrying the envelope", async () => {
    const { fetch } = pipelineFetch();
    const marea = createMareaClient({ apiKey: developerKey, baseUrl: "http://127.0.0.1", fetch });
    const me = await ok(marea.GET("/v1/me"));
    expect(me.type).toBe("developer");
    const failure = await marea
      .GET("/v1/webhook_endpoints/{id}", { params: { path: { id: "mk_we_0000000000000000" } } })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(MareaError);
    const error = failure as MareaError;
    expect(error.status).toBe(404);
    expect(error.code).toBe("webhook_endpoint_not_found");
    expect(error.requestId).toMatch(/^req_/);
    expect(error.envelope.error.doc).toMatch(/\/errors#webhook_endpoint_not_found$/);
  });
});

describe("Idempotency-Key on writes by default", () => {
  it("every POST carries a fresh key, GETs none; a key the caller set is kept", async () => {
    const { fetch, sent } = pipelineFetch();
    const marea = createMareaClient({ apiKey: developerKey, baseUrl: "http://127.0.0.1", fetch });
    await ok(marea.POST("/v1/users", { body: { email: uniqueEmail() } }));
    await ok(marea.POST("/v1/users", { body: { email: uniqueEmail() } }));
    await ok(marea.GET("/v1/me"));
    const own = { email: uniqueEmail() };
    const first = await ok(marea.POST("/v1/users", { body: own, headers: { "Idempotency-Key": "mine-1" } }));
    // The same key and body replay the first answer: the write happened once.
    const replay = await ok(marea.POST("/v1/users", { body: own, headers: { "Idempotency-Key": "mine-1" } }));
    expect(replay.user.id).toBe(first.user.id);
    const [a, b, get, c] = sent;
    expect(a?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(b?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(a?.idempotencyKey).not.toBe(b?.idempotencyKey);
    expect(get?.idempotencyKey).toBeNull();
    expect(c?.idempotencyKey).toBe("mine-1");
  });
});

describe("429: rpm_exceeded is retried after Retry-After, rpd_exceeded never", () => {
  it("a write over the minute's limit waits Retry-After and is sent again with the same Idempotency-Key", async () => {
    const limited = await createDeveloper({ rpm: 1 });
    // The pipeline's clock starts 0.5 s before a minute ends and runs with the real one, so Retry-After is 1 s.
    const start = Date.now();
    const minuteEnd = Math.ceil((start + 60_000) / 60_000) * 60_000;
    const clock = () => new Date(minuteEnd - 500 + (Date.now() - start));
    const { fetch, sent } = pipelineFetch(clock);
    const marea = createMareaClient({ apiKey: limited.key, baseUrl: "http://127.0.0.1", fetch });
    await ok(marea.GET("/v1/me"));
    const created = await ok(marea.POST("/v1/users", { body: { email: uniqueEmail() } }));
    expect(created.user.id).toMatch(/^usr_/);
    const posts = sent.filter((s) => s.method === "POST");
    expect(posts.map((s) => s.status)).toEqual([429, 201]);
    expect(posts[0]?.idempotencyKey).toBe(posts[1]?.idempotencyKey);
  });

  it("the daily budget used up throws at once, without a retry", async () => {
    const limited = await createDeveloper({ dailyLimit: 1 });
    const { fetch, sent } = pipelineFetch();
    const marea = createMareaClient({ apiKey: limited.key, baseUrl: "http://127.0.0.1", fetch });
    await ok(marea.GET("/v1/me"));
    const failure = await marea.GET("/v1/me").then(
      () => null,
      (error: unknown) => error as MareaError,
    );
    expect(failure?.status).toBe(429);
    expect(failure?.envelope.error.message).toContain("rpd_exceeded");
    expect(sent).toHaveLength(2);
  });
});

describe("verifyWebhook", () => {
  const secret = "a".repeat(64);
  const envelope = JSON.stringify(exampleEnvelope("order.paid", new Date()));

  it("returns the typed event for a body signed by Marea's signer, narrowed by type", () => {
    const header = signatureHeader(secret, Math.floor(Date.now() / 1000), envelope);
    const event = verifyWebhook(envelope, header, secret);
    expect(event.type).toBe("order.paid");
    if (event.type === "order.paid") expect(typeof event.data.paidAt).toBe("string");
    expect(verifyWebhook(Buffer.from(envelope), header, secret).eventId).toBe(event.eventId);
  });

  it("refuses a changed body, another secret, an old timestamp and a missing header", () => {
    const now = Math.floor(Date.now() / 1000);
    const header = signatureHeader(secret, now, envelope);
    const reason = (run: () => unknown) => {
      try {
        run();
        return null;
      } catch (error) {
        return (error as WebhookVerificationError).reason;
      }
    };
    expect(reason(() => verifyWebhook(`${envelope} `, header, secret))).toBe("signature_mismatch");
    expect(reason(() => verifyWebhook(envelope, header, "b".repeat(64)))).toBe("signature_mismatch");
    expect(reason(() => verifyWebhook(envelope, signatureHeader(secret, now - 301, envelope), secret))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(reason(() => verifyWebhook(envelope, undefined, secret))).toBe("missing_signature");
    expect(reason(() => verifyWebhook(envelope, "v1=abc", secret))).toBe("malformed_signature");
  });
});
