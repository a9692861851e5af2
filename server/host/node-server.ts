import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The node:http <-> fetch bridge. It imports nothing of the app (no pipeline, no database), so the production
 * start (server/host/main.ts) can load it beside Next without a second copy of the app's modules.
 */

/** A fetch-style handler: what the /v1 pipeline (`handleV1Request`) and the health check are. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * A node:http listener around a fetch-style handler (docs/operations.md, "Running"): the request's body is
 * streamed to the handler, and the response's body streamed back chunk by chunk (one write with a
 * Content-Length when it is a single chunk, the usual case). A client that hangs up mid-body makes the body
 * stream fail (the pipeline answers `invalid_request`, to nobody); a handler that stops reading the body (over
 * the size limit) leaves the rest to be discarded and the connection closed after the answer.
 */
export function serveFetch(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    respond(handler, req, res).catch(() => {
      // Only a failure to write the answer gets here (the pipeline renders and logs its own errors).
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end();
      } else res.destroy();
    });
  };
}

async function respond(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const body = hasBody ? requestBody(req) : undefined;
  const request = new Request(url, {
    method: req.method,
    headers,
    body: body?.stream,
    // Node's fetch Request needs this for a streamed body.
    ...(body ? { duplex: "half" } : {}),
  } as RequestInit);
  const response = await handler(request);
  // Answered before the body ended (refused over the size limit, or before it was needed): the rest is read and
  // dropped, and the connection closes after the answer, so a client cannot keep streaming into it.
  if (body && !req.complete) {
    body.abandon();
    res.setHeader("connection", "close");
  }
  await sendResponse(res, response);
}

/**
 * The request body as a web stream. Cancelling it (a body over the size limit) does not destroy the socket,
 * as `Readable.toWeb` would before the answer could be written: `abandon` reads the rest and drops it.
 */
function requestBody(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; abandon: () => void } {
  let finished = false;
  const abandon = () => {
    finished = true;
    req.resume();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on("end", () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      // A client that hangs up mid-body: `close` without `end` (and an `error` of ECONNRESET, "aborted").
      const fail = () => {
        if (finished) return;
        finished = true;
        controller.error(new Error("the client closed the connection before the request body ended"));
      };
      req.on("error", fail);
      req.on("close", () => {
        if (!req.complete) fail();
      });
    },
    pull() {
      req.resume();
    },
    cancel: abandon,
  });
  return { stream, abandon };
}

/** Writes a fetch Response to node's response: status, every header (each Set-Cookie apart), then the body. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) {
    if (name === "set-cookie") continue;
    res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const first = await reader.read();
  if (first.done) {
    res.end();
    return;
  }
  // A body already complete in memory (every JSON answer) is one chunk followed at once by its end: send it in
  // one write with a Content-Length. A streamed body's next chunk comes later: the first goes out now.
  const next = reader.read();
  const second = await Promise.race([next, new Promise<null>((resolve) => setImmediate(resolve, null))]);
  if (second?.done) {
    res.end(first.value);
    return;
  }
  // Streaming: stop reading when the client goes away, and respect backpressure.
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  res.write(first.value);
  let chunk = second ?? (await next);
  while (!chunk.done) {
    if (closed) {
      await reader.cancel();
      return;
    }
    if (!res.write(chunk.value)) await drained(res);
    chunk = await reader.read();
  }
  res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
