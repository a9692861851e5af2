import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { handleV1Request } from "./router";

/**
 * Serves the /v1 API with plain node:http (no Next): the pipeline is a `(Request) => Promise<Response>`, so
 * any process can run it. Used by tests that need several server processes on one database.
 */
export function createV1Server(): Server {
  return createServer((req, res) => {
    void respond(req, res);
  });
}

async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // Node's fetch Request needs this for a streamed body.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
  const response = await handleV1Request(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}
