import { eq } from "drizzle-orm";
import { type ExecutionArgs, type ExecutionResult, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { verifyEmail } from "@/server/accounts/verification";
import { dbReady } from "@/server/db/client";
import { isAppError } from "@/server/errors";
import { claimIdempotencyKey } from "@/server/gate/idempotency";
import { accounts } from "@/server/gate/tables";
import { latestVerificationCode } from "@/server/orders/testing";
import { products } from "@/server/products/tables";
import { createMerchant, createTestStorefront } from "@/server/storefronts/testing";
import { serviceContextFor, sessionActor } from "@/server/testing/context";
import { commitsOwnWrites } from "@/server/wiring/operations";
import { createGraphQLContext, type GraphQLContext } from "./context";
import { graphQLErrorOf } from "./errors";
import { executeIdempotently, graphQLFingerprint, idempotencyScopeOf } from "./idempotency";
import { gql, testYoga } from "./testing";

// Idempotency-Key on GraphQL mutations (docs/graphql.md, "Idempotency"): /v1's store and rules, one mutation per
// request, the first answer replayed byte for byte.

const CREATE = `mutation($s: ID!, $input: ProductManifest!) { createProduct(storefrontId: $s, input: $input) { id title price } }`;

async function setUp() {
  const merchant = await createMerchant({ plan: "PRO", verified: true });
  const storefront = await createTestStorefront(merchant.userKey);
  const productsOf = async () => {
    const db = await dbReady();
    return db.select().from(products).where(eq(products.storefrontId, storefront.id));
  };
  return { key: merchant.userKey, userId: merchant.userId, storefrontId: storefront.id, productsOf };
}

const keyed = (idempotencyKey: string) => ({ "idempotency-key": idempotencyKey });

describe("Idempotency-Key on mutations", () => {
  it("a retry replays the first answer exactly, with Idempotent-Replayed, and writes once", async () => {
    const { key, storefrontId, productsOf } = await setUp();
    const variables = { s: storefrontId, input: { title: "Concha", price: 12 } };
    const first = await gql(CREATE, { key, variables, headers: keyed("create-1") });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await gql(CREATE, { key, variables, headers: keyed("create-1") });
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-request-id")).toBe(first.headers.get("x-request-id"));
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("x-ratelimit-limit")).toBe("100000");
    expect(await productsOf()).toHaveLength(1);
  });

  it("the same key with other variables is 409 idempotency_key_reused; a query ignores the header", async () => {
    const { key, storefrontId, productsOf } = await setUp();
    await gql(CREATE, {
      key,
      variables: { s: storefrontId, input: { title: "A", price: 1 } },
      headers: keyed("k"),
    });
    const reused = await gql(CREATE, {
      key,
      variables: { s: storefrontId, input: { title: "B", price: 1 } },
      headers: keyed("k"),
    });
    expect(reused.status).toBe(409);
    expect(reused.body.errors?.[0]?.extensions).toMatchObject({
      code: "idempotency_key_reused",
      type: "idempotency_conflict",
      param: "Idempotency-Key",
    });
    const query = await gql("{ storefronts { edges { node { id } } } }", { key, headers: keyed("k") });
    expect(query.status).toBe(200);
    expect(query.headers.get("idempotent-replayed")).toBeNull();
    expect(await productsOf()).toHaveLength(1);
  });

  it("one mutation per request with the header (else 400, nothing written); a key over 255 characters is 400", async () => {
    const { key, storefrontId, productsOf } = await setUp();
    const two = await gql(
      `mutation($s: ID!) { a: createProduct(storefrontId: $s, input: { title: "A", price: 1 }) { id }
        b: createProduct(storefrontId: $s, input: { title: "B", price: 1 }) { id } }`,
      { key, variables: { s: storefrontId }, headers: keyed("two") },
    );
    expect(two.status).toBe(400);
    expect(two.body.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_request",
      param: "Idempotency-Key",
    });
    const long = await gql(CREATE, {
      key,
      variables: { s: storefrontId, input: { title: "A", price: 1 } },
      headers: keyed("k".repeat(256)),
    });
    expect(long.body.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_request",
      param: "Idempotency-Key",
    });
    expect(await productsOf()).toEqual([]);
    // Without the header, several mutations in one request run in order.
    const both = await gql(
      `mutation($s: ID!) { a: createProduct(storefrontId: $s, input: { title: "A", price: 1 }) { id }
        b: createProduct(storefrontId: $s, input: { title: "B", price: 1 }) { id } }`,
      { key, variables: { s: storefrontId } },
    );
    expect(both.body.errors).toBeUndefined();
    expect(await productsOf()).toHaveLength(2);
  });

  it("a refusal of the operation is stored and replayed; an input validation error is not, so a corrected retry runs", async () => {
    const { key, storefrontId, productsOf } = await setUp();
    const missing = await gql(CREATE, {
      key,
      variables: { s: "stf_unknown", input: { title: "A", price: 1 } },
      headers: keyed("refused"),
    });
    expect(missing.body.errors?.[0]?.extensions.code).toBe("storefront_not_found");
    const replayed = await gql(CREATE, {
      key,
      variables: { s: "stf_unknown", input: { title: "A", price: 1 } },
      headers: keyed("refused"),
    });
    expect(replayed.text).toBe(missing.text);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");

    const invalid = await gql(CREATE, {
      key,
      variables: { s: storefrontId, input: { title: "", price: 1 } },
      headers: keyed("fix-me"),
    });
    expect(invalid.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request", param: "title" });
    const corrected = await gql<{ createProduct: { title: string } }>(CREATE, {
      key,
      variables: { s: storefrontId, input: { title: "Arreglado", price: 1 } },
      headers: keyed("fix-me"),
    });
    expect(corrected.body.errors).toBeUndefined();
    expect(corrected.body.data?.createProduct.title).toBe("Arreglado");
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
    expect(await productsOf()).toHaveLength(1);
  });

  it("a request still running under the key is 409 idempotency_request_in_progress, recoverable", async () => {
    const { key, storefrontId } = await setUp();
    const variables = { s: storefrontId, input: { title: "A", price: 1 } };
    const me = await gql<{ me: { keyId: string } }>("{ me { keyId } }", { key });
    const keyId = me.body.data?.me.keyId ?? "";
    await claimIdempotencyKey(
      await dbReady(),
      keyId,
      "busy",
      graphQLFingerprint({ query: CREATE, variables }),
      new Date(),
    );
    const busy = await gql(CREATE, { key, variables, headers: keyed("busy") });
    expect(busy.status).toBe(409);
    expect(busy.body.errors?.[0]?.extensions).toMatchObject({
      code: "idempotency_request_in_progress",
      recoverable: true,
    });
  });

  it("a dashboard session's keys are its own: scoped to the session", async () => {
    const { userId, storefrontId, productsOf } = await setUp();
    const yoga = testYoga({
      resolveSession: async (request, db) =>
        request.headers.get("cookie") ? sessionActor(db, userId, request.headers.get("cookie") ?? "") : null,
    });
    const variables = { s: storefrontId, input: { title: "A", price: 1 } };
    const headers = { origin: "http://localhost:3000", ...keyed("s-1") };
    const first = await gql(CREATE, { yoga, variables, headers: { ...headers, cookie: "ses_a" } });
    const replay = await gql(CREATE, { yoga, variables, headers: { ...headers, cookie: "ses_a" } });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    const otherSession = await gql(CREATE, { yoga, variables, headers: { ...headers, cookie: "ses_b" } });
    expect(otherSession.headers.get("idempotent-replayed")).toBeNull();
    expect(await productsOf()).toHaveLength(2);
  });
});

// A mutation whose operation commits its own writes (docs/architecture.md, "Operations": `commitsOwnWrites`) is
// run outside the door's transaction. No GraphQL field runs verifyEmail today: the executor is given one that does,
// under the name of its operation, and, for contrast, under the name of an operation that runs in the transaction.
describe("Idempotency-Key on a mutation whose operation commits its own writes", () => {
  it("a wrong verification code stays counted and its refusal is stored; in the door's transaction it would roll back", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const code = await latestVerificationCode(user.email);
    const wrong = code === "123456" ? "654321" : "123456";
    const db = await dbReady();
    const ctx = await serviceContextFor(user.userKey);
    if (!ctx.actor) throw new Error("expected an actor");
    const scopeId = idempotencyScopeOf(ctx.actor);
    const execute = async (args: ExecutionArgs): Promise<ExecutionResult> => {
      try {
        await verifyEmail((args.contextValue as GraphQLContext).service, { code: wrong });
        return { data: { verify: true } };
      } catch (error) {
        if (!isAppError(error)) throw error;
        return { data: { verify: null }, errors: [graphQLErrorOf(error)] };
      }
    };
    const run = (mutation: string, idempotencyKey: string) =>
      executeIdempotently(
        execute,
        { contextValue: createGraphQLContext(ctx), document: parse("mutation { verify }") } as ExecutionArgs,
        {
          scopeId,
          idempotencyKey,
          fingerprint: graphQLFingerprint({ query: mutation }),
          mutation,
          commitsOwnWrites: commitsOwnWrites(mutation),
        },
        { db, requestId: "req_test", language: "en", contentType: "application/json", now: () => new Date() },
      );
    const tries = async () => {
      const [row] = await db
        .select({ tries: accounts.verificationTries })
        .from(accounts)
        .where(eq(accounts.id, user.userId));
      return row?.tries;
    };

    const first = await run("verifyEmail", "gql-verify");
    expect(first.answer).toMatchObject({ isReplay: false });
    expect(first.answer?.body).toContain("invalid_verification_code");
    expect(await tries()).toBe(1);
    const again = await run("verifyEmail", "gql-verify");
    expect(again.answer).toMatchObject({ isReplay: true, body: first.answer?.body });
    expect(await tries()).toBe(1);

    const inTransaction = await run("createProduct", "gql-rolled-back");
    expect(inTransaction.answer?.body).toContain("invalid_verification_code");
    expect(await tries()).toBe(1);
  });
});
