import { AppError, type Messages } from "@/server/errors";

/**
 * Request bodies (docs/security.md, "Request bodies and door limits"): every door reads its body through
 * `readBoundedBody` (or hands its framework a `boundedRequest`), so a body is capped BEFORE it is parsed, whether
 * it declares its length or arrives chunked, and a body over the cap is refused while it arrives, never read whole.
 */

const KIB = 1024;

/** The cap of each kind of door, in bytes. */
export const BODY_LIMITS = {
  /** /v1, GraphQL, MCP and tRPC (docs/api.md, "Request pipeline"). */
  api: 1024 * KIB,
  /** The public checkout (`POST /s/{slug}/orders`): a few products and a name. */
  checkout: 64 * KIB,
  /** The OAuth endpoints: a token request, a revocation, a client registration (10 redirect URIs of 2,000). */
  oauth: 64 * KIB,
  /** POST /v1/files: one image of at most 10 MiB, raw or in a multipart form (docs/api.md, "Files"). */
  file: 10 * 1024 * KIB,
  /** The HTML forms (sign-in, sign-out, preferences, OAuth consent and disconnect): a few short fields. */
  form: 16 * KIB,
} as const;

function sizeOf(bytes: number): string {
  return bytes % (1024 * KIB) === 0 ? `${bytes / (1024 * KIB)} MiB` : `${Math.round(bytes / KIB)} KiB`;
}

/** 413 `payload_too_large`, naming the cap of the door that refused (the catalogue's text names 1 MiB). */
export function payloadTooLarge(maxBytes: number): AppError {
  if (maxBytes === BODY_LIMITS.api) return new AppError("payload_too_large");
  const size = sizeOf(maxBytes);
  const message: Messages = {
    en: `The request body is larger than ${size}.`,
    es: `El cuerpo de la solicitud supera ${size}.`,
    pt: `O corpo da solicitação é maior que ${size}.`,
  };
  return new AppError("payload_too_large", { message });
}

/** The client closed the connection before its body ended: its mistake, never a lost database. */
function bodyCutOff(): AppError {
  return new AppError("invalid_request", {
    detail: {
      en: "The request body could not be read: the connection closed before it ended.",
      es: "No se pudo leer el cuerpo de la solicitud: la conexión se cerró antes de que terminara.",
      pt: "Não foi possível ler o corpo da solicitação: a conexão foi fechada antes do fim.",
    },
  });
}

function declaredLength(request: Request): number {
  const declared = Number(request.headers.get("content-length") ?? "0");
  return Number.isFinite(declared) ? declared : 0;
}

/**
 * The body as text, at most `maxBytes` of it: a declared Content-Length over the cap is refused before a byte is
 * read; a chunked (or understated) body is counted as it arrives and refused the moment it passes the cap (the
 * rest is never read). Throws AppError `payload_too_large` (413), or `invalid_request` when the client hangs up
 * mid-body.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<string> {
  return (await readBoundedBytes(request, maxBytes)).toString("utf8");
}

/** The body as bytes, capped like `readBoundedBody` (file uploads: docs/api.md, "Files"). */
export async function readBoundedBytes(request: Request, maxBytes: number): Promise<Buffer> {
  if (declaredLength(request) > maxBytes) throw payloadTooLarge(maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      throw error instanceof AppError ? error : bodyCutOff();
    });
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * `request` with its body capped for a framework that reads the body itself, when it needs it (tRPC reads it
 * only once a procedure parses its input, after its authentication middleware): the body stream fails with
 * the AppError `readBoundedBody` would throw, so whatever reads it gets that error, after at most `maxBytes`.
 */
export function boundedRequest(request: Request, maxBytes: number): Request {
  const source = request.body;
  if (!source) return request;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let total = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!reader) {
          if (declaredLength(request) > maxBytes) {
            controller.error(payloadTooLarge(maxBytes));
            return;
          }
          reader = source.getReader();
        }
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          controller.error(bodyCutOff());
          return;
        }
        if (chunk.done) {
          controller.close();
          return;
        }
        total += chunk.value.byteLength;
        if (total > maxBytes) {
          await reader.cancel().catch(() => undefined);
          controller.error(payloadTooLarge(maxBytes));
          return;
        }
        controller.enqueue(chunk.value);
      },
      async cancel(reason) {
        await (reader ?? source).cancel(reason).catch(() => undefined);
      },
      // Nothing is pulled before the framework asks: a caller refused first (401) leaves the body unread.
    },
    { highWaterMark: 0 },
  );
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
    // Node's fetch Request needs this for a streamed body.
    duplex: "half",
  } as RequestInit);
}

/**
 * JSON text as a value. Throws AppError `invalid_json` for text that is not JSON; an empty (or all-blank) body
 * is `options.empty` when given (the /v1 pipeline reads it as `{}`), else not JSON either.
 */
export function parseJsonBody(raw: string, options: { empty?: unknown } = {}): unknown {
  if ("empty" in options && raw.trim() === "") return options.empty;
  try {
    return JSON.parse(raw);
  } catch {
    throw new AppError("invalid_json");
  }
}
