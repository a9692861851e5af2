// A partner's first afternoon with the SDK (sdk/README.md): bootstrap a merchant, build a storefront, handle an error,
// and receive a real webhook verified with `verifyWebhook`. Runs against any Marea server:
//
//   MAREA_API_KEY=mk_dev_… MAREA_API_BASE=http://localhost:3000 npx tsx sdk/examples/quickstart.ts
//
// The webhook part needs a server that may call http://127.0.0.1 (UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1, local only).
// npm test runs it against a real server (sdk/test/example.test.ts).
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMareaClient, MareaError, ok, verifyWebhook, type WebhookEvent } from "../src/index.js";

const apiKey = process.env.MAREA_API_KEY;
if (!apiKey)
  throw new Error(
    "Set MAREA_API_KEY to a developer key (npm run cli -- dev-key create --email you@example.com)",
  );
const baseUrl = process.env.MAREA_API_BASE ?? "http://localhost:3000";

const developer = createMareaClient({ apiKey, baseUrl });

const me = await ok(developer.GET("/v1/me"));
console.log(`me: ${me.type} key ${me.keyId}, ${me.rateLimit.remainingDay} requests left today`);

// A local receiver: every delivery is verified against its raw body before anything else.
const received: WebhookEvent[] = [];
let secret = "";
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      const header = req.headers["x-service-signature"];
      received.push(verifyWebhook(Buffer.concat(chunks), Array.isArray(header) ? header[0] : header, secret));
      res.writeHead(200).end("ok");
    } catch (error) {
      console.log(`refused a delivery: ${(error as Error).message}`);
      res.writeHead(401).end();
    }
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const endpoint = await ok(
  developer.POST("/v1/webhook_endpoints", {
    body: { url: hookUrl, subscribedEvents: ["order.created"], description: "quickstart" },
  }),
);
secret = endpoint.signingSecret;
console.log(`endpoint ${endpoint.endpointId} -> ${hookUrl}`);

// Bootstrap a merchant: its user key manages its catalog.
const { user, userKey } = await ok(
  developer.POST("/v1/users", {
    body: { email: `quickstart-${randomBytes(4).toString("hex")}@example.com` },
  }),
);
console.log(`bootstrapped ${user.id} (${user.status})`);
const merchant = createMareaClient({ apiKey: userKey, baseUrl });

const { storefront } = await ok(
  merchant.POST("/v1/storefronts", { body: { name: "Tacos Lupita", currency: "MXN", language: "es" } }),
);
console.log(`storefront ${storefront.id}`);
const { product } = await ok(
  merchant.POST("/v1/storefronts/{storefrontId}/products", {
    params: { path: { storefrontId: storefront.id } },
    body: { title: "Taco al pastor", price: 25 },
  }),
);
console.log(`product ${product.id} at ${product.price}`);

// Errors are thrown as MareaError with the whole envelope.
try {
  await merchant.GET("/v1/storefronts/{storefrontId}", { params: { path: { storefrontId: "stf_missing" } } });
} catch (error) {
  if (!(error instanceof MareaError)) throw error;
  console.log(
    `error ${error.status} ${error.code} (request ${error.requestId}): see ${error.envelope.error.doc}`,
  );
}

const { order } = await ok(
  merchant.POST("/v1/storefronts/{storefrontId}/orders", {
    params: { path: { storefrontId: storefront.id } },
    body: {
      items: [{ productId: product.id, amount: 2 }],
      customer: { name: "Ana", phone: "+5215512345678" },
      paymentMethod: { name: "Efectivo" },
    },
  }),
);
console.log(`order ${order.id} total ${order.totalPrice}`);

// The delivery arrives within a few seconds (the worker sends it right after the order commits).
const deadline = Date.now() + 30_000;
while (received.length === 0 && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 100));
const event = received[0];
if (!event) throw new Error("no webhook arrived in 30 s");
if (event.type === "order.created") {
  // Narrowed by `type`: `data` is the order.created payload.
  console.log(`webhook ${event.type} verified: order ${event.data.orderId} total ${event.data.totalPrice}`);
}

await ok(developer.DELETE("/v1/webhook_endpoints/{id}", { params: { path: { id: endpoint.endpointId } } }));
receiver.close();
console.log("done");
