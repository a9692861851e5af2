import { dbReady } from "@/server/db/client";
import { listOutbox } from "@/server/mail/service";
import { ProductManifest } from "@/server/products/schema";
import { createProduct } from "@/server/products/service";
import { CreateStorefrontInput } from "@/server/storefronts/schema";
import { createStorefront } from "@/server/storefronts/service";
import { asAdapter, serviceContextFor } from "@/server/testing/context";

/** The 6-digit code of the newest verification mail sent to `email` (read from the real mail outbox). */
export async function latestVerificationCode(email: string): Promise<string> {
  const [mail] = await listOutbox(await dbReady(), { to: email });
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no verification code mailed to ${email}`);
  return code;
}

/** A storefront with one product of the given stock, through the services. */
export async function createStorefrontWithProduct(
  userKey: string,
  product: { title?: string; price?: number; salePrice?: number | null; stock?: number | null } = {},
  storefront: Record<string, unknown> = {},
): Promise<{ storefrontId: string; productId: string }> {
  const ctx = await serviceContextFor(userKey);
  const input = CreateStorefrontInput.parse({
    name: "Tacos Lupita",
    language: "es",
    currency: "MXN",
    ...storefront,
  });
  const created = await asAdapter(ctx, (c) => createStorefront(c, input));
  const storefrontId = created.storefront.id;
  const manifest = ProductManifest.parse({
    title: product.title ?? "Taco al pastor",
    price: product.price ?? 25,
    ...product,
  });
  const made = await asAdapter(ctx, (c) => createProduct(c, { storefrontId, product: manifest }));
  return { storefrontId, productId: made.id };
}
