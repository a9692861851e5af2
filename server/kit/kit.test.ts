import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { BODY_LIMITS, boundedRequest, parseJsonBody, readBoundedBody } from "./body";
import { toAppError } from "./errors";
import { formFields, readFormBody } from "./form";
import { acceptLanguageOf, requestLanguage } from "./language";
import { renderRejected } from "./rejected";

// The door kit (docs/architecture.md, "The door kit"): the plumbing every door shares, on its own.

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost:3000/x", {
    method: "POST",
    headers,
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** A stream of `chunks` chunks of `size` bytes; `fail` makes it error after them (a client hanging up). */
function stream(chunks: number, size: number, fail = false): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === chunks) {
        if (fail) controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
        else controller.close();
        return;
      }
      sent++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
}

async function refusalOf(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("readBoundedBody", () => {
  it("reads a body up to the cap exactly; one byte more is 413, declared or chunked", async () => {
    expect(await readBoundedBody(post("a".repeat(1024)), 1024)).toHaveLength(1024);
    expect(await readBoundedBody(post(stream(4, 256)), 1024)).toHaveLength(1024);
    const declared = await refusalOf(readBoundedBody(post("a", { "content-length": "1025" }), 1024));
    expect(declared.code).toBe("payload_too_large");
    const chunked = await refusalOf(readBoundedBody(post(stream(5, 256)), 1024));
    expect(chunked.code).toBe("payload_too_large");
    expect(chunked.status).toBe(413);
  });

  it("names the door's cap in every language (the catalogue's own text for 1 MiB)", async () => {
    const small = await refusalOf(readBoundedBody(post(stream(100, 1024)), BODY_LIMITS.form));
    expect(small.options.message).toEqual({
      en: "The request body is larger than 16 KiB.",
      es: "El cuerpo de la solicitud supera 16 KiB.",
      pt: "O corpo da solicitação é maior que 16 KiB.",
    });
    const api = await refusalOf(readBoundedBody(post(stream(1100, 1024)), BODY_LIMITS.api));
    expect(api.options.message).toBeUndefined();
  });

  it("a client that hangs up mid-body is invalid_request, never a lost database", async () => {
    const error = await refusalOf(readBoundedBody(post(stream(2, 10, true)), 1024));
    expect(error.code).toBe("invalid_request");
    expect(toAppError(error, { requestId: "req_test" }).code).toBe("invalid_request");
  });

  it("boundedRequest hands a framework the same refusal through the body stream, reading nothing before it asks", async () => {
    const capped = boundedRequest(post(stream(5, 256)), 1024);
    expect((await refusalOf(capped.text())).code).toBe("payload_too_large");
    const declared = boundedRequest(post("{}", { "content-length": "2048" }), 1024);
    expect((await refusalOf(declared.json())).code).toBe("payload_too_large");
    expect(await boundedRequest(post('{"a":1}'), 1024).json()).toEqual({ a: 1 });
  });

  it("parseJsonBody: invalid_json for what is not JSON; an empty body only when the door says what it means", () => {
    expect(parseJsonBody('{"a":1}')).toEqual({ a: 1 });
    expect(parseJsonBody("  ", { empty: {} })).toEqual({});
    expect(() => parseJsonBody("")).toThrow("invalid_json");
    expect(() => parseJsonBody("{")).toThrow("invalid_json");
  });
});

describe("readFormBody", () => {
  it("parses a urlencoded form from the capped text; a repeated field keeps its last value", async () => {
    const form = await readFormBody(
      post("a=1&b=%C3%A9&a=2", { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" }),
      1024,
    );
    expect(formFields(form)).toEqual({ a: "2", b: "é" });
  });

  it("refuses multipart/form-data before reading it; another type reads as no fields", async () => {
    const multipart = await refusalOf(
      readFormBody(post(stream(1000, 1024), { "content-type": "multipart/form-data; boundary=x" }), 1024),
    );
    expect(multipart).toMatchObject({ code: "invalid_request", options: { param: "content-type" } });
    expect([...(await readFormBody(post("a=1", { "content-type": "text/plain" }), 1024))]).toEqual([]);
  });

  it("is capped like any body", async () => {
    const error = await refusalOf(
      readFormBody(
        post(stream(20, 1024), { "content-type": "application/x-www-form-urlencoded" }),
        16 * 1024,
      ),
    );
    expect(error.code).toBe("payload_too_large");
  });
});

describe("toAppError", () => {
  it("passes an AppError; a lost database is 503 with Retry-After 5; anything else a masked 500", () => {
    const own = new AppError("slug_taken");
    expect(toAppError(own, { requestId: "req_test" })).toBe(own);
    const lost = toAppError(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }), {
      requestId: "req_test",
    });
    expect(lost).toMatchObject({
      code: "service_unavailable",
      options: { retryAfterMs: 5000, headers: { "retry-after": "5" } },
    });
    const unknown = toAppError(new Error("secret internals"), { requestId: "req_test" });
    expect(unknown.code).toBe("internal_error");
    expect(unknown.message).not.toContain("secret");
  });
});

describe("the request's language", () => {
  const request = (headers: Record<string, string>) => new Request("http://localhost:3000/", { headers });

  it("requestLanguage: the marea_lang cookie first, then Accept-Language, then English", () => {
    expect(requestLanguage(request({ cookie: "marea_lang=pt", "accept-language": "es" }))).toBe("pt");
    expect(requestLanguage(request({ cookie: "marea_lang=fr", "accept-language": "es;q=0.5, en" }))).toBe(
      "en",
    );
    expect(requestLanguage(request({ "accept-language": "pt-BR,pt;q=0.9" }))).toBe("pt");
    expect(requestLanguage(request({}))).toBe("en");
  });

  it("acceptLanguageOf: an API answer follows Accept-Language only", () => {
    expect(acceptLanguageOf(request({ cookie: "marea_lang=pt", "accept-language": "es" }))).toBe("es");
    expect(acceptLanguageOf(request({ cookie: "marea_lang=pt" }))).toBe("en");
  });
});

describe("renderRejected", () => {
  it("each rejected product as the catalogue's error object; `argument` renames the list in param", () => {
    const rejected = [
      {
        index: 3,
        code: "products_over_limit" as const,
        param: "products[3]",
        upgrade: { currentPlan: "FREE_NEW", requiredPlan: "PRO", upgradeUrl: "https://x.example/up" },
        detail: { en: "Limit 10.", es: "Límite 10.", pt: "Limite 10." },
      },
    ];
    const [rest] = renderRejected(rejected, { requestId: "req_1", language: "es" }) ?? [];
    expect(rest).toMatchObject({
      index: 3,
      error: {
        code: "products_over_limit",
        param: "products[3]",
        requestId: "req_1",
        upgrade: { requiredPlan: "PRO" },
      },
    });
    expect(rest?.error.message).toContain("Límite 10.");
    const [graphql] =
      renderRejected(rejected, { requestId: "req_1", language: "en", argument: "inputs" }) ?? [];
    expect(graphql?.error.param).toBe("inputs[3]");
    expect(renderRejected(undefined, { requestId: "req_1", language: "en" })).toBeUndefined();
  });
});
