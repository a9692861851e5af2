import { handlePublicCheckout } from "@/server/orders/checkout-door";

// The public checkout (docs/api.md, "Public storefront"): every rule is in the door and `placePublicOrder`.
export const dynamic = "force-dynamic";

export async function POST(
  request: Request,
  context: { params: Promise<{ slug: string }> },
): Promise<Response> {
  return handlePublicCheckout(request, (await context.params).slug);
}
