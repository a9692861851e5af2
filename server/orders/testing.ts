import { dbReady } from "@/server/db/client";
import { listOutbox } from "@/server/mail/service";
import { call } from "@/server/testing/api";

/** The 6-digit code of the newest verification mail sent to `email` (read from the real mail outbox). */
export async function latestVerificationCode(email: string): Promise<string> {
  const [mail] = await listOutbox(await dbReady(), { to: email });
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no verification code mailed to ${email}`);
  return code;
}

/** A storefront with one product of the given stock, through the real API. */
export async function createStorefrontWithProduct(
  userKey: string,
  product: { title?: string; price?: number; salePrice?: number | null; stock?: number | null } = {},
  storefront: Record<string, unknown> = {},
): Promise<{ storefrontId: string; productId: string }> {
  const created = await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
    key: userKey,
    body: { name: "Tacos Lupita", language: "es", currency: "MXN", ...storefront },
  });
  if (created.status !== 201) throw new Error(`storefront: ${created.status} ${created.text}`);
  const storefrontId = created.body.storefront.id;
  const made = await call<{ product: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/products`, {
    key: userKey,
    body: { title: product.title ?? "Taco al pastor", price: product.price ?? 25, ...product },
  });
  if (made.status !== 201) throw new Error(`product: ${made.status} ${made.text}`);
  return { storefrontId, productId: made.body.product.id };
}
