import { describe, expect, it } from "vitest";
import { createMerchant, createTestStorefront } from "@/server/storefronts/testing";
import { gql } from "./testing";

describe("smoke", () => {
  it("works", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const s = await createTestStorefront(merchant.userKey);
    const res = await gql(
      `{ storefront(id: "${s.id}") { id name links { editUrl } products { edges { node { id } } pageInfo { hasNextPage } } } me { keyId } }`,
      { key: merchant.userKey },
    );
    console.log(res.status, JSON.stringify(res.body, null, 1), [...res.headers]);
    const none = await gql(`{ me { keyId } }`);
    console.log(none.status, none.text);
    const bad = await gql(`{ storefront(id: "stf_x") { id } }`, { key: merchant.userKey });
    console.log(bad.status, bad.text);
    const syntax = await gql(`{ storefront(id: `, { key: merchant.userKey });
    console.log(syntax.status, syntax.text);
    const upd = await gql(
      `mutation($input: UpdateStorefrontInput!) { updateStorefront(id: "${s.id}", input: $input) { id delivery { ranges { fromKm } } } }`,
      {
        key: merchant.userKey,
        variables: {
          input: {
            delivery: {
              enabled: true,
              ranges: [
                { fromKm: 0, toKm: 5, price: 1 },
                { fromKm: 3, toKm: 8, price: 2 },
              ],
            },
          },
        },
      },
    );
    console.log(upd.status, upd.text);
    expect(res.status).toBe(200);
  });
});
