import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { isSameOrigin } from "@/server/gate/origin";
import { BODY_LIMITS, parseJsonBody, readBoundedBody } from "@/server/kit/body";
import { envelopeResponse } from "@/server/kit/envelope";
import { toAppError } from "@/server/kit/errors";
import { acceptLanguageOf } from "@/server/kit/language";
import { newId } from "@/server/lib/ids";
import { clientIp } from "@/server/sessions/client-ip";
import { isCleanText, parseInput } from "@/server/validation";
import { placePublicOrder } from "./place";
import { PublicOrderInput } from "./schema";

/**
 * POST /s/{slug}/orders: the checkout of the public storefront page (docs/api.md, "Public storefront"). Same-origin
 * requests only (the page's own script); the body (64 KiB at most, refused as it arrives) is `PublicOrderInput`
 * (product ids, amounts, options: a price field is refused by name); one service call, `placePublicOrder`, with
 * the client's IP for the per-IP limit. 201 `{order: {id, publicOrderId}, statusUrl}`; errors are the catalogue's
 * envelope in the language the page asks for (`Accept-Language`), with `param` naming the field.
 */
export async function handlePublicCheckout(request: Request, slug: string): Promise<Response> {
  const requestId = newId("req");
  const language = acceptLanguageOf(request);
  try {
    if (!isSameOrigin(request)) throw new AppError("cross_site_request");
    // A slug that cannot name a storefront (a NUL, which the database refuses) is the page's own 404.
    if (!isCleanText(slug)) throw new AppError("storefront_not_found", { param: "slug" });
    const body = parseJsonBody(await readBoundedBody(request, BODY_LIMITS.checkout));
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
    const failure = toAppError(error, { requestId, door: "checkout" });
    // A lost database (503) says when to come back, as a 429 does (kit/envelope.ts).
    const retryAfterMs = failure.options.retryAfterMs;
    const headers: Record<string, string> = retryAfterMs
      ? { "retry-after": String(Math.ceil(retryAfterMs / 1000)) }
      : {};
    return envelopeResponse(failure, { requestId, language, headers });
  }
}
