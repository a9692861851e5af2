import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { countInFixedWindow } from "@/server/db/fixed-window";
import { inTransaction } from "@/server/db/transaction";
import { AppError, ERROR_CATALOGUE, type Language } from "@/server/errors";
import { MAX_AMOUNT } from "@/server/fields";
import { sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { products } from "@/server/products/tables";
import { storefrontChangedAfterCommit } from "@/server/storefronts/changes";
import { type StorefrontRow, toStorefrontDto } from "@/server/storefronts/dto";
import { findLiveStorefront, findPublishedStorefront } from "@/server/storefronts/lookup";
import { openingState } from "@/server/storefronts/opening-hours";
import { paymentMethodsFor, timeZoneFor } from "@/server/storefronts/settings";
import { storefronts } from "@/server/storefronts/tables";
import { emitEvent } from "@/server/webhooks/events";
import { wakeDeliveries } from "@/server/webhooks/wake";
import { toOrderDto, toStoredOrderItem } from "./dto";
import { orderEventData } from "./lifecycle";
import { ORDER_LIMITS, PUBLIC_ORDER_LIMITS } from "./limits";
import { authorize } from "./operations";
import { roundMoney as money } from "./options";
import {
  type DeliverySettings,
  deliveryPriceFor,
  describeDeliveryRefusal,
  type FulfillmentSettings,
  offeredFulfillments,
} from "./pricing";
import { type CreateOrderInput, HONEYPOT_FIELD, type OrderDto, type PublicOrderInput } from "./schema";
import { type OrderSource, orderableProducts, takeStock } from "./stock";
import { orders, publicOrderRateLimits, publicOrderStorefrontLimits } from "./tables";

/**
 * Placing an order: the merchant's own (`createOrder`) and a customer's from the public page
 * (`placePublicOrder`, with that page's limits and rules), both through `placeOrder`.
 */

type Fulfillment = OrderDto["fulfillment"];

/**
 * Every amount of an order fits the numeric(14, 4) columns (MAX_AMOUNT, docs/api.md "Hostile and malformed
 * input"): each line, the subtotal and the total. A line over it is 400 on `items[i].amount`, a sum on `items`.
 */
function checkOrderTotals(lines: Array<{ price: number; amount: number }>, deliveryPrice: number): void {
  const tooLarge = (param: string) =>
    new AppError("invalid_request", {
      param,
      detail: {
        en: `${param}: the order's amounts must not exceed ${MAX_AMOUNT}.`,
        es: `${param}: los importes del pedido no deben superar ${MAX_AMOUNT}.`,
        pt: `${param}: os valores do pedido não devem ultrapassar ${MAX_AMOUNT}.`,
      },
    });
  const line = lines.findIndex((item) => money(item.price * item.amount) > MAX_AMOUNT);
  if (line >= 0) throw tooLarge(`items[${line}].amount`);
  const subtotal = money(lines.reduce((sum, item) => sum + item.price * item.amount, 0));
  if (subtotal > MAX_AMOUNT || money(subtotal + deliveryPrice) > MAX_AMOUNT) throw tooLarge("items");
}

/** The order's lines at the catalog's current prices (a product not found counts 0: taking stock refuses it). */
async function linesAtCatalogPrices(
  db: Db,
  storefrontId: string,
  lines: CreateOrderInput["items"],
  source: OrderSource,
): Promise<Array<{ price: number; amount: number }>> {
  const rows = await db
    .select({ id: products.id, price: products.price, salePrice: products.salePrice })
    .from(products)
    .where(
      and(
        inArray(products.id, [...new Set(lines.map((line) => line.productId))]),
        orderableProducts(storefrontId, source),
      ),
    );
  const prices = new Map(rows.map((row) => [row.id, money(row.salePrice ?? row.price)]));
  return lines.map((line) => ({ price: prices.get(line.productId) ?? 0, amount: line.amount }));
}

/** deliveryPrice from the storefront's delivery settings (pricing.ts), or the 400 that says why not. */
function deliveryPrice(settings: FulfillmentSettings, fulfillment: Fulfillment): number {
  const result = deliveryPriceFor(settings, fulfillment);
  if (result.ok) return result.price;
  throw new AppError("invalid_request", {
    param: result.param,
    detail: describeDeliveryRefusal(result.reason),
  });
}

/**
 * A phone or counter order from the merchant (POST /v1/storefronts/{storefrontId}/orders; unpublished
 * storefronts too). See `placeOrder` for what every order goes through.
 */
export async function createOrder(
  ctx: ServiceContext,
  input: { storefrontId: string; order: CreateOrderInput },
): Promise<OrderDto> {
  const actor = authorize(ctx, "createOrder");
  const placed = await placeOrder(ctx, input.order, {
    source: "api",
    findStorefront: (db) =>
      findLiveStorefront(db, { accountId: actor.accountId, storefrontId: input.storefrontId }),
  });
  return placed.order;
}

/** What a customer's order from the public page answers: the order, and the status link's token (shown once). */
export type PlacedPublicOrder = { order: OrderDto; statusToken: string };

/**
 * A customer's order on the public storefront page (docs/api.md, "Public storefront"): no actor; the owner is
 * the storefront's account. On top of every order's rules (`placeOrder`), in this order:
 * - at most 10 orders a minute per client IP, counted before anything else (429 `order_rate_limited`);
 * - a filled honeypot field is refused (400 `invalid_request`, `param: website`) and places nothing;
 * - at most 20 lines of at most 20 units each (400 `invalid_request`): anonymous orders take stock before anyone
 *   pays, so they stay far below the merchant's own;
 * - at most 30 orders per 10 minutes per storefront and 600 a minute across every storefront (429
 *   `storefront_busy`), counted only for attempts the per-IP limit let through, so one connection cannot spend a
 *   store's budget with refused requests;
 * - only a published, visible storefront takes orders (else 404, as its page), and only while it is open by its
 *   schedule in its time zone (409 `storefront_closed`, with the next opening in the message and
 *   `retryAfterMs`);
 * - the fulfillment is one the page offers and the payment method one of the storefront's (400);
 * - products the page hides are `product_not_found`.
 * A `pending` public order the merchant has not accepted within 60 minutes is cancelled by the job
 * `expire-public-orders` (`cancelStalePublicOrders`), which puts its stock back.
 * The answer carries a random status token (256 bits) for the order's status page; only its SHA-256 is stored.
 */
export async function placePublicOrder(
  ctx: ServiceContext,
  input: { slug: string; order: PublicOrderInput; clientIp: string },
): Promise<PlacedPublicOrder> {
  const limits = PUBLIC_ORDER_LIMITS;
  // `clientIp` is always a bucket (`unknown` when the address cannot be told): docs/security.md, "Client addresses".
  const counted = await countInFixedWindow(ctx.db, publicOrderRateLimits, {
    buckets: [{ key: `ip:${input.clientIp}`, limit: limits.perIpPerMinute }],
    windowSeconds: limits.ipWindowSeconds,
    now: ctx.now(),
  });
  if (counted.isOver) throw new AppError("order_rate_limited", { retryAfterMs: counted.retryAfterMs });
  const { [HONEYPOT_FIELD]: honeypot, ...order } = input.order;
  if (honeypot && honeypot.trim() !== "") {
    throw new AppError("invalid_request", {
      param: HONEYPOT_FIELD,
      detail: { en: "Leave this field empty.", es: "Deja este campo vacío.", pt: "Deixe este campo vazio." },
    });
  }
  checkPublicOrderSize(order);
  await countPublicOrderForStorefront(ctx, input.slug);
  const statusToken = randomBytes(32).toString("base64url");
  const placed = await placeOrder(ctx, order, {
    source: "public",
    findStorefront: (db) => findPublishedStorefront(db, input.slug),
    check: (storefront, fulfillment) => checkPublicOrder(ctx, storefront, order, fulfillment),
    statusTokenHash: sha256Hex(statusToken),
  });
  return { order: placed.order, statusToken };
}

/**
 * The public page's lines and units (`PUBLIC_ORDER_LIMITS`): the schema of the page's body says so too, and the
 * service holds the rule whatever parsed the body.
 */
function checkPublicOrderSize(order: CreateOrderInput): void {
  const { maxLines, maxUnitsPerLine } = PUBLIC_ORDER_LIMITS;
  if (order.items.length > maxLines) {
    throw new AppError("invalid_request", {
      param: "items",
      detail: {
        en: `items: an order from the store's page has at most ${maxLines} lines.`,
        es: `items: un pedido desde la página de la tienda tiene como máximo ${maxLines} líneas.`,
        pt: `items: um pedido pela página da loja tem no máximo ${maxLines} linhas.`,
      },
    });
  }
  const line = order.items.findIndex((item) => item.amount > maxUnitsPerLine);
  if (line >= 0) {
    const param = `items[${line}].amount`;
    throw new AppError("invalid_request", {
      param,
      detail: {
        en: `${param}: at most ${maxUnitsPerLine} units per line from the store's page.`,
        es: `${param}: como máximo ${maxUnitsPerLine} unidades por línea desde la página de la tienda.`,
        pt: `${param}: no máximo ${maxUnitsPerLine} unidades por linha pela página da loja.`,
      },
    });
  }
}

/**
 * Counts the attempt in the storefront's window (by slug: no read before the limit) and in the deployment's; over
 * either, 429 `storefront_busy`. The first refusal of a window is logged as a warning, for alerting: a store
 * under an order flood, or a flood across stores.
 */
async function countPublicOrderForStorefront(ctx: ServiceContext, slug: string): Promise<void> {
  const limits = PUBLIC_ORDER_LIMITS;
  const now = ctx.now();
  const store = await countInFixedWindow(ctx.db, publicOrderStorefrontLimits, {
    buckets: [{ key: `storefront:${slug}`, limit: limits.perStorefront }],
    windowSeconds: limits.storefrontWindowSeconds,
    now,
  });
  if (store.isOver) {
    if (store.counts[0] === limits.perStorefront + 1) {
      log("warn", "public order limit of a storefront reached", { slug, limit: limits.perStorefront });
    }
    throw new AppError("storefront_busy", { retryAfterMs: store.retryAfterMs });
  }
  const all = await countInFixedWindow(ctx.db, publicOrderStorefrontLimits, {
    buckets: [{ key: "all", limit: limits.perMinuteInAll }],
    windowSeconds: limits.globalWindowSeconds,
    now,
  });
  if (all.isOver) {
    if (all.counts[0] === limits.perMinuteInAll + 1) {
      log("warn", "public order limit across storefronts reached", { limit: limits.perMinuteInAll });
    }
    throw new AppError("storefront_busy", { retryAfterMs: all.retryAfterMs });
  }
}

/**
 * The public page's own rules: open now, a fulfillment it offers, one of its payment methods (kept in the
 * storefront's spelling).
 */
function checkPublicOrder(
  ctx: ServiceContext,
  storefront: StorefrontRow,
  order: CreateOrderInput,
  fulfillment: Fulfillment,
): { paymentMethodName: string } {
  const dto = toStorefrontDto(storefront);
  const timeZone = timeZoneFor(storefront);
  const now = ctx.now();
  const state = openingState(dto.schedule, timeZone, now);
  if (!state.isOpen) throw storefrontClosed(state.opensAt, timeZone, now);
  const offered = offeredFulfillments({
    delivery: dto.delivery,
    pickup: storefront.pickup,
    dineIn: storefront.dineIn,
  });
  if (!offered.includes(fulfillment.type)) {
    throw new AppError("invalid_request", {
      param: "fulfillment.type",
      detail: {
        en: `fulfillment.type: this storefront's page takes ${offered.join(", ") || "no"} orders.`,
        es: `fulfillment.type: la página de esta tienda acepta pedidos ${offered.join(", ") || "de ningún tipo"}.`,
        pt: `fulfillment.type: a página desta loja aceita pedidos ${offered.join(", ") || "de nenhum tipo"}.`,
      },
    });
  }
  const methods = paymentMethodsFor(storefront.paymentMethods, storefront.language);
  const wanted = order.paymentMethod.name.trim().toLowerCase();
  const method = methods.find((name) => name.toLowerCase() === wanted);
  if (!method) {
    throw new AppError("invalid_request", {
      param: "paymentMethod.name",
      detail: {
        en: `paymentMethod.name: one of ${methods.map((name) => JSON.stringify(name)).join(", ")}.`,
        es: `paymentMethod.name: una de ${methods.map((name) => JSON.stringify(name)).join(", ")}.`,
        pt: `paymentMethod.name: uma de ${methods.map((name) => JSON.stringify(name)).join(", ")}.`,
      },
    });
  }
  return { paymentMethodName: method };
}

const OPENS_AT: Record<Language, string> = {
  en: "It opens {when}.",
  es: "Abre: {when}.",
  pt: "Abre: {when}.",
};

/** 409 `storefront_closed`, naming the next opening in each language, in the storefront's time zone. */
function storefrontClosed(opensAt: Date | null, timeZone: string, now: Date): AppError {
  if (!opensAt) return new AppError("storefront_closed");
  const message: Record<Language, string> = { en: "", es: "", pt: "" };
  for (const language of ["en", "es", "pt"] as const) {
    const when = new Intl.DateTimeFormat(language, {
      timeZone,
      weekday: "long",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(opensAt);
    message[language] =
      `${ERROR_CATALOGUE.storefront_closed.messages[language]} ${OPENS_AT[language].replace("{when}", when)}`;
  }
  return new AppError("storefront_closed", { message, retryAfterMs: opensAt.getTime() - now.getTime() });
}

type PlaceOptions = {
  source: OrderSource;
  findStorefront: (db: Db) => Promise<StorefrontRow>;
  /** Rules of the door on top of every order's (the public page's); throws to refuse. */
  check?: (storefront: StorefrontRow, fulfillment: Fulfillment) => { paymentMethodName?: string };
  statusTokenHash?: string;
};

/**
 * Every order, whoever places it: prices come from the catalog (salePrice when set, plus the chosen options),
 * the options obey the product's groups (server/orders/options.ts), stock is taken atomically (products and
 * options with stock never go below zero, however many orders race for them), totals and the delivery price are
 * computed here, and `order.created` is recorded in the same transaction.
 */
async function placeOrder(
  ctx: ServiceContext,
  input: CreateOrderInput,
  options: PlaceOptions,
): Promise<{ order: OrderDto }> {
  const now = ctx.now();
  const fulfillment: Fulfillment = {
    type: input.fulfillment?.type ?? "pickup",
    distanceKm: input.fulfillment?.distanceKm ?? null,
  };
  const created = await inTransaction(ctx.db, async (db) => {
    const storefront = await options.findStorefront(db);
    const checked = options.check?.(storefront, fulfillment);
    const delivery = deliveryPrice(
      {
        delivery: storefront.delivery as DeliverySettings,
        pickup: storefront.pickup,
        dineIn: storefront.dineIn,
      },
      fulfillment,
    );
    // Refused before anything is written, at the catalog's prices; checked again on the prices actually taken
    // (with the options, and a concurrent price change in between).
    checkOrderTotals(await linesAtCatalogPrices(db, storefront.id, input.items, options.source), delivery);
    const { items, isStockTaken } = await takeStock(db, storefront.id, input.items, options.source);
    checkOrderTotals(items, delivery);
    const subtotal = money(items.reduce((sum, item) => sum + item.price * item.amount, 0));
    const stored = {
      items: items.map(toStoredOrderItem),
      customer: input.customer,
      paymentMethod: { name: checked?.paymentMethodName ?? input.paymentMethod.name },
    };
    checkStoredSize(stored);
    const [counter] = await db
      .update(storefronts)
      .set({ orderCounter: sql`${storefronts.orderCounter} + 1` })
      .where(eq(storefronts.id, storefront.id))
      .returning({ publicOrderId: storefronts.orderCounter });
    if (!counter) throw new AppError("storefront_not_found", { param: "storefrontId" });
    const [row] = await db
      .insert(orders)
      .values({
        id: newId("ord"),
        publicOrderId: counter.publicOrderId,
        storefrontId: storefront.id,
        accountId: storefront.accountId,
        orderStatus: "pending",
        customStatus: null,
        ...stored,
        paymentStatus: "pending",
        fulfillment,
        subtotalPrice: subtotal,
        deliveryPrice: delivery,
        totalPrice: money(subtotal + delivery),
        currency: storefront.currency,
        source: options.source,
        statusTokenHash: options.statusTokenHash ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("order insert returned no row");
    await emitEvent(
      db,
      { type: "order.created", data: orderEventData(row, storefront.language), accountId: row.accountId },
      now,
    );
    // Stock the page shows as "sold out" or "N left" moved.
    if (isStockTaken) storefrontChangedAfterCommit(ctx, { storefrontId: storefront.id });
    return row;
  });
  ctx.afterCommit(wakeDeliveries);
  return { order: toOrderDto(created) };
}

/**
 * What an order stores, at most `ORDER_LIMITS.maxStoredBytes` of JSON (docs/api.md, "Orders"): every text has
 * its own maximum, this bounds many long titles together. Checked before the row is written; the transaction
 * (and the stock it took) rolls back.
 */
function checkStoredSize(stored: object): void {
  const bytes = Buffer.byteLength(JSON.stringify(stored));
  if (bytes <= ORDER_LIMITS.maxStoredBytes) return;
  const kib = ORDER_LIMITS.maxStoredBytes / 1024;
  throw new AppError("invalid_request", {
    param: "items",
    detail: {
      en: `items: the order is too large to keep (its lines, titles and options over ${kib} KiB); split it.`,
      es: `items: el pedido es demasiado grande para guardarlo (sus líneas, títulos y opciones superan ${kib} KiB); divídelo.`,
      pt: `items: o pedido é grande demais para guardar (suas linhas, títulos e opções passam de ${kib} KiB); divida-o.`,
    },
  });
}
