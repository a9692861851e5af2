import { createServiceContext } from "@/server/context";
import { dbReady, isDatabaseUnavailable } from "@/server/db/client";
import { AppError, errorBody, isAppError, pickLanguage } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { PublicOrderInput } from "@/server/orders/schema";
import { placePublicOrder } from "@/server/orders/service";
import { clientIp } from "@/server/sessions/client-ip";
import { isSameOrigin } from "@/server/sessions/origin";
import { parseInput } from "@/server/validation";

export const dynamic = "force-dynamic";

/** A checkout body is a few products and a name: far below this. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * POST /s/{slug}/orders: the checkout of the public storefront page (docs/api.md, "Public storefront"). Same-origin
 * requests only (the page's own script); the body is `PublicOrderInput` (product ids, amounts, options: a price
 * field is refused by name); one service call, `placePublicOrder`, with the client's IP for the per-IP limit.
 * 201 `{order: {id, publicOrderId}, statusUrl}`; errors are the catalogue's error object in the language the page
 * asks for (`Accept-Language`), with `param` naming the field.
 */
export async function POST(
  request: Request,
  context: { params: Promise<{ slug: string }> },
): Promise<Response> {
  const requestId = newId("req");
  const language = pickLanguage(request.headers.get("accept-language"));
  const fail = (error: AppError) =>
    Response.json(errorBody(error, requestId, language), {
      status: error.status,
      headers: {
        "x-request-id": requestId,
        ...(error.options.retryAfterMs
          ? { "retry-after": String(Math.ceil(error.options.retryAfterMs / 1000)) }
          : {}),
      },
    });
  try {
    if (!isSameOrigin(request)) throw new AppError("cross_site_request");
    const { slug } = await context.params;
    const raw = await request.text();
    if (Buffer.byteLength(raw) > MAX_BODY_BYTES) throw new AppError("payload_too_large");
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new AppError("invalid_json");
    }
    const order = parseInput(PublicOrderInput, body, language);
    const ctx = createServiceContext({ db: await dbReady(), requestId, language });
    const placed = await placePublicOrder(ctx, { slug, order, clientIp: clientIp(request) });
    ctx.runAfterCommit();
    const statusUrl = `/s/${encodeURIComponent(slug)}/orders/${placed.order.id}?t=${placed.statusToken}`;
    return Response.json(
      { order: { id: placed.order.id, publicOrderId: placed.order.publicOrderId }, statusUrl },
      { status: 201, headers: { "x-request-id": requestId, "cache-control": "no-store" } },
    );
  } catch (error) {
    if (isAppError(error)) return fail(error);
    if (isDatabaseUnavailable(error))
      return fail(new AppError("service_unavailable", { retryAfterMs: 5000 }));
    log("error", "public order failed", { requestId, error });
    return fail(new AppError("internal_error"));
  }
}
