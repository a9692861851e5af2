import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { rawExchange } from "@/server/testing/raw-http";
import { type FetchHandler, serveFetch } from "./node-server";

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(handler: FetchHandler): Promise<number> {
  server = createServer(serveFetch(handler));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

// docs/operations.md, "Running": the node:http bridge of the production start.
describe("node:http bridge (serveFetch)", () => {
  it("a body complete in memory goes out in one piece with its Content-Length; every Set-Cookie is kept", async () => {
    const port = await serve(async () => {
      const headers = new Headers({ "content-type": "application/json" });
      headers.append("set-cookie", "a=1; Path=/");
      headers.append("set-cookie", "b=2; Path=/");
      return new Response(JSON.stringify({ ok: true }), { status: 201, headers });
    });
    const res = await fetch(`http://127.0.0.1:${port}/v1/x`);
    expect(res.status).toBe(201);
    expect(res.headers.get("content-length")).toBe("11");
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("a streamed response reaches the client chunk by chunk, before the handler has finished it", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const port = await serve(async () => {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode("first;"));
          await released;
          controller.enqueue(encoder.encode("second"));
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/plain" } });
    });
    const res = await fetch(`http://127.0.0.1:${port}/v1/stream`);
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    // The second chunk is only produced once the first has arrived here: a buffered bridge would hang.
    expect(decoder.decode((await reader.read()).value)).toBe("first;");
    release();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    expect(rest).toBe("second");
  });

  it("the request body is streamed to the handler", async () => {
    const port = await serve(async (request) => new Response(`got ${(await request.text()).length}`));
    const res = await fetch(`http://127.0.0.1:${port}/v1/echo`, {
      method: "POST",
      body: "x".repeat(300_000),
    });
    expect(await res.text()).toBe("got 300000");
  });

  it("a handler that stops reading the body (over a size limit) still gets its answer out, then the connection closes", async () => {
    const port = await serve(async (request) => {
      const reader = request.body?.getReader();
      await reader?.read();
      await reader?.cancel();
      return new Response("too large", { status: 413 });
    });
    // Chunked, no Content-Length: the handler has to start reading before it can refuse.
    const head =
      "POST /v1/big HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n";
    const chunk = Buffer.concat([
      Buffer.from(`${(64 * 1024).toString(16)}\r\n`),
      Buffer.alloc(64 * 1024, 97),
      Buffer.from("\r\n"),
    ]);
    const received = await rawExchange(port, [head, chunk, chunk, chunk]);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received.toLowerCase()).toContain("connection: close");
    expect(received).toContain("too large");
  });

  it("a client that hangs up mid-body fails the handler's body read, and the server goes on serving", async () => {
    let bodyError: unknown;
    let settled: () => void = () => {};
    const handled = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const port = await serve(async (request) => {
      try {
        await request.text();
      } catch (error) {
        bodyError = error;
      }
      settled();
      return new Response("late");
    });
    await rawExchange(
      port,
      ["POST /v1/partial HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n", "only part of it"],
      200,
    );
    await handled;
    expect(bodyError).toBeDefined();
    const res = await fetch(`http://127.0.0.1:${port}/v1/after`, { method: "POST", body: "ok" });
    expect(await res.text()).toBe("late");
  });
});
