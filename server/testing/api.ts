import { handleV1Request } from "@/server/wiring/rest";

export type ApiResult<T = Record<string, unknown>> = {
  status: number;
  headers: Headers;
  body: T;
  text: string;
};

export type CallOptions = {
  key?: string;
  /** Send the key as X-API-Key instead of Authorization: Bearer. */
  keyHeader?: "authorization" | "x-api-key";
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** The request's clock (the pipeline and the services read the time from it). */
  now?: () => Date;
};

/** Calls the /v1 API in-process with a real Request, exactly as the Next route handler does. */
export async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) {
    if (options.keyHeader === "x-api-key") headers["x-api-key"] = options.key;
    else headers.authorization = `Bearer ${options.key}`;
  }
  let body: string | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await handleV1Request(new Request(`http://127.0.0.1${path}`, { method, headers, body }), {
    now: options.now,
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/**
 * Waits until the current minute has more than 10 s left: the per-key counters are fixed minute windows, so a test
 * that counts several requests must not straddle a minute's end.
 */
export async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
}
