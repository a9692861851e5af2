import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths, webhooks } from "./schema.js";

/**
 * The Marea SDK (sdk/README.md): a typed client generated from `/v1/openapi.json` (openapi-typescript types under
 * openapi-fetch), with the API's conventions built in: `Idempotency-Key` on every write, 429 `rpm_exceeded` retried
 * after `Retry-After` (never `rpd_exceeded`), errors thrown as `MareaError` with the envelope, and `verifyWebhook`.
 */

export type { components, operations, paths, webhooks };

/** The error envelope every failed call answers (docs/api.md, "Errors"). */
export type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];
export type ErrorObject = ErrorEnvelope["error"];

/** The five event types, from the document's `webhooks` section. */
export type WebhookEventType = keyof webhooks;

/** The envelope a delivery of `T` carries (a union over every type by default, discriminated by `type`). */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = T extends WebhookEventType
  ? NonNullable<webhooks[T]["post"]>["requestBody"]["content"]["application/json"]
  : never;

/** A failed call: the HTTP status and the whole error envelope, typed. */
export class MareaError extends Error {
  readonly status: number;
  readonly envelope: ErrorEnvelope;
  readonly code: string;
  readonly type: ErrorObject["type"];
  readonly param: string | null;
  readonly requestId: string;
  readonly retryAfterMs: number | null;

  constructor(status: number, envelope: ErrorEnvelope) {
    super(`${envelope.error.code}: ${envelope.error.message}`);
    this.name = "MareaError";
    this.status = status;
    this.envelope = envelope;
    this.code = envelope.error.code;
    this.type = envelope.error.type;
    this.param = envelope.error.param;
    this.requestId = envelope.error.requestId;
    this.retryAfterMs = envelope.error.retryAfterMs;
  }
}

export type MareaClientOptions = {
  /** A `mk_dev_…` or `mk_user_…` key. */
  apiKey: string;
  /** Default `http://localhost:3000`. */
  baseUrl?: string;
  /** How many times a 429 `rpm_exceeded` is retried after its `Retry-After` (default 3). */
  maxRetries?: number;
  /** The longest wait honoured before a retry (default 60 000 ms); a longer `Retry-After` is thrown at once. */
  maxRetryWaitMs?: number;
  /** Send a fresh `Idempotency-Key` on every POST, PATCH and DELETE that has none (default true). */
  idempotencyKeys?: boolean;
  /** Extra headers on every request (e.g. `Accept-Language: es`). */
  headers?: Record<string, string>;
  /** The fetch to use (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
};

export type MareaClient = Client<paths>;

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: { code?: unknown } } | null)?.error;
  return typeof error === "object" && error !== null && typeof error.code === "string";
}

/** A 429 whose message names the per-minute bucket: the daily one (`rpd_exceeded`) is never retried. */
function isMinuteLimit(status: number, body: unknown): body is ErrorEnvelope {
  return (
    status === 429 &&
    isEnvelope(body) &&
    body.error.code === "rate_limit_exceeded" &&
    body.error.message.includes("rpm_exceeded")
  );
}

function retryWaitMs(response: Response, body: ErrorEnvelope): number {
  const header = Number(response.headers.get("retry-after"));
  if (Number.isFinite(header) && header >= 0) return header * 1000;
  return body.error.retryAfterMs ?? 1000;
}

/** An answer that is not the API's envelope (a proxy's HTML page, an empty 502) still throws a `MareaError`. */
function syntheticEnvelope(response: Response, text: string): ErrorEnvelope {
  return {
    error: {
      type: response.status >= 500 ? "service_unavailable" : "invalid_request",
      code: "unexpected_response",
      message: `HTTP ${response.status} without an error envelope: ${text.slice(0, 200)}`,
      doc: "",
      param: null,
      requestId: response.headers.get("x-request-id") ?? "req_unknown",
      recoverable: response.status >= 500,
      retryAfterMs: null,
      nextActions: [],
      upgrade: null,
    },
  };
}

/**
 * A typed client of every `/v1` operation. Calls are openapi-fetch's (`marea.GET("/v1/me")`,
 * `marea.POST("/v1/storefronts", { body })`), with paths, parameters, bodies and answers typed from the document.
 * A failed call throws `MareaError`; `ok()` unwraps a success's `data`.
 */
export function createMareaClient(options: MareaClientOptions): MareaClient {
  const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
  const maxRetries = options.maxRetries ?? 3;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;

  // Retries run below the middlewares, so a retried write carries the same Idempotency-Key.
  async function fetchWithRetries(request: Request): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const response = await baseFetch(request.clone());
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => null);
      if (!isMinuteLimit(response.status, body)) return response;
      const waitMs = retryWaitMs(response, body);
      if (waitMs > maxRetryWaitMs) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  const client = createClient<paths>({
    baseUrl: (options.baseUrl ?? "http://localhost:3000").replace(/\/+$/, ""),
    headers: { ...options.headers, authorization: `Bearer ${options.apiKey}` },
    fetch: fetchWithRetries,
  });

  const conventions: Middleware = {
    onRequest({ request }) {
      if (
        options.idempotencyKeys !== false &&
        WRITE_METHODS.has(request.method) &&
        !request.headers.has("idempotency-key")
      )
        request.headers.set("idempotency-key", randomUUID());
      return request;
    },
    async onResponse({ response }) {
      if (response.ok) return response;
      const text = await response.text();
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      throw new MareaError(response.status, isEnvelope(body) ? body : syntheticEnvelope(response, text));
    },
  };
  client.use(conventions);
  return client;
}

/**
 * The `data` of a call that succeeded (a failed one already threw `MareaError`), typed:
 * `const { storefront } = await ok(marea.POST("/v1/storefronts", { body }))`.
 */
export async function ok<T>(pending: Promise<{ data?: T; response: Response }>): Promise<NonNullable<T>> {
  const { data, response } = await pending;
  if (data === undefined || data === null)
    throw new Error(`HTTP ${response.status} answered no body to unwrap`);
  return data as NonNullable<T>;
}

// -----------------------------------------------------------------------------------------------------------------
// Webhooks

export type WebhookVerificationFailure =
  | "missing_signature"
  | "malformed_signature"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch"
  | "invalid_json";

/** `verifyWebhook` refused the request: answer 401 and do not process it. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure) {
    super(`webhook refused: ${reason}`);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

export type VerifyWebhookOptions = {
  /** Maximum |now - t| in seconds (default 300, docs/webhooks.md, "Signature"). */
  toleranceSec?: number;
  /** The current time (default the clock). */
  now?: Date;
};

/**
 * Verifies `X-Service-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the 64-hex
 * secret's ASCII bytes) over the RAW body, in constant time and within the tolerance, then parses it and returns the
 * typed event (`switch (event.type)` narrows `data`). Throws `WebhookVerificationError` otherwise. Works with an
 * endpoint's `signingSecret` and with the secret `marea listen` prints.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  if (!signatureHeader) throw new WebhookVerificationError("missing_signature");
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of signatureHeader.split(",")) {
    const [name, value] = part.split("=", 2);
    if (name === "t" && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (name === "v1" && value && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === null || signatures.length === 0)
    throw new WebhookVerificationError("malformed_signature");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSec ?? 300))
    throw new WebhookVerificationError("timestamp_out_of_tolerance");
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);
  const expected = createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${timestamp}.`)
    .update(body)
    .digest();
  const matches = signatures.some((candidate) => timingSafeEqual(Buffer.from(candidate, "hex"), expected));
  if (!matches) throw new WebhookVerificationError("signature_mismatch");
  try {
    return JSON.parse(body.toString("utf8")) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("invalid_json");
  }
}
