import { randomBytes } from "node:crypto";
import { type Api, expect, type Mailbox, runCli, uniqueEmail } from "./fixtures";

/** Subjects of the API's verification mail in en, es and pt (server/accounts/service.ts). */
const VERIFICATION_SUBJECT = /verification code|código de verificación|código de verificação/;

export type PublishedStore = {
  developerKey: string;
  userKey: string;
  userId: string;
  email: string;
  storefrontId: string;
  slug: string;
  products: Array<{ id: string; title: string }>;
};

/**
 * A merchant the way a developer partner makes one (docs/api.md): a developer key (CLI), a bootstrapped user,
 * the mailed code verified over /v1, the PRO plan (CLI), then a storefront with `products`, published. The
 * slug is unique per call so no page cached by an earlier run or test can answer.
 */
export async function createPublishedStore(
  api: Api,
  mail: Mailbox,
  storefront: Record<string, unknown>,
  products: Array<Record<string, unknown>>,
): Promise<PublishedStore> {
  const { key: developerKey } = (await runCli(["dev-key", "create", "--email", uniqueEmail("partner")])) as {
    key: string;
  };
  const email = uniqueEmail("merchant");
  const since = Date.now() - 1000;
  const user = await api<{ user: { id: string }; userKey: string }>("POST", "/v1/users", {
    key: developerKey,
    body: { email, language: "es" },
  });
  expect(user.status).toBe(201);
  const mailed = await mail.waitForMail(email, since, VERIFICATION_SUBJECT);
  const code = mailed.subject.match(/\b(\d{6})\b/)?.[1];
  const verified = await api("POST", "/v1/me/verify", { key: user.body.userKey, body: { code } });
  expect(verified.status).toBe(200);
  await runCli(["plan", "set", "--email", email, "--plan", "PRO"]);
  const slug = `${String(storefront.slug ?? "tienda")}-${randomBytes(4).toString("hex")}`;
  const created = await api<{ storefront: { id: string }; products: Array<{ id: string; title: string }> }>(
    "POST",
    "/v1/storefronts",
    { key: user.body.userKey, body: { ...storefront, slug, products } },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const published = await api<{ storefront: { slug: string } }>(
    "POST",
    `/v1/storefronts/${created.body.storefront.id}/publish`,
    { key: user.body.userKey },
  );
  expect(published.status).toBe(200);
  return {
    developerKey,
    userKey: user.body.userKey,
    userId: user.body.user.id,
    email,
    storefrontId: created.body.storefront.id,
    slug: published.body.storefront.slug,
    products: created.body.products.map((product) => ({ id: product.id, title: product.title })),
  };
}
