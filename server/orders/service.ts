import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, gt, inArray, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { countInFixedWindow } from "@/server/db/fixed-window";
import { inTransaction } from "@/server/db/transaction";
import { AppError, ERROR_CATALOGUE, type Language } from "@/server/errors";
import { inRequestedOrder, toPages } from "@/server/lib/batch";
import { safeEqual, sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { products } from "@/server/products/tables";
import { notifyStorefrontChanged, storefrontChangedAfterCommit } from "@/server/storefronts/changes";
import { type StorefrontRow, toStorefrontDto } from "@/server/storefronts/dto";
import { MAX_AMOUNT } from "@/server/storefronts/fields";
import { findLiveStorefront, findPublishedStorefront, liveStorefrontsOf } from "@/server/storefronts/lookup";
import { openingState } from "@/server/storefronts/opening-hours";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { paymentMethodsFor, timeZoneFor } from "@/server/storefronts/settings";
import { storefronts } from "@/server/storefronts/tables";
import { emitEvent } from "@/server/webhooks/events";
import { wakeDeliveries } from "@/server/webhooks/wake";
import { type OrderRow, toOrderDto, toStoredOrderItem } from "./dto";
import { ORDER_LIMITS, PUBLIC_ORDER_LIMITS } from "./limits";
import { authorize } from "./operations";
import {
  checkOptionChoices,
  describeOptionProblem,
  lineTitle,
  roundMoney as money,
  type OptionGroup,
} from "./options";
import {
  type DeliverySettings,
  deliveryPriceFor,
  describeDeliveryRefusal,
  type FulfillmentSettings,
  offeredFulfillments,
} from "./pricing";
import {
  type CreateOrderInput,
  type CustomStatus,
  HONEYPOT_FIELD,
  type OrderDto,
  type OrderStatus,
  type PaymentStatus,
  type PayOrderInput,
  type PublicOrderInput,
  type UpdateOrderInput,
} from "./schema";
import { orders, publicOrderRateLimits, publicOrderStorefrontLimits } from "./tables";

type Fulfillment = OrderDto["fulfillment"];
/** An order line as charged: the title and unit price, the chosen options with their group's title. */
type OrderLine = OrderDto["items"][number];

/** Which orderStatus may follow which (docs/api.md, "Orders"); `delivered` and `cancelled` are final. */
export const ORDER_TRANSITIONS: Record<OrderStatus, OrderStatus[]> = {
  pending: ["accepted", "cancelled"],
  accepted: ["preparing", "ready", "cancelled"],
  preparing: ["ready", "cancelled"],
  ready: ["delivering", "delivered", "cancelled"],
  delivering: ["delivered", "cancelled"],
  delivered: [],
  cancelled: [],
};

const STATUS_LABELS: Record<string, Record<OrderStatus, string>> = {
  es: {
    pending: "Pendiente",
    accepted: "Aceptado",
    preparing: "En preparación",
    ready: "Listo",
    delivering: "En camino",
    delivered: "Entregado",
    cancelled: "Cancelado",
  },
  en: {
    pending: "Pending",
    accepted: "Accepted",
    preparing: "Preparing",
    ready: "Ready",
    delivering: "Out for delivery",
    delivered: "Delivered",
    cancelled: "Cancelled",
  },
  pt: {
    pending: "Pendente",
    accepted: "Aceito",
    preparing: "Em preparo",
    ready: "Pronto",
    delivering: "A caminho",
    delivered: "Entregue",
    cancelled: "Cancelado",
  },
};

function transitionDetail(from: OrderStatus, to: OrderStatus) {
  const allowed = ORDER_TRANSITIONS[from].join(", ");
  return {
    en: `${from} -> ${to} is not allowed; from ${from}: ${allowed || "none (final)"}.`,
    es: `${from} -> ${to} no está permitido; desde ${from}: ${allowed || "ninguno (final)"}.`,
    pt: `${from} -> ${to} não é permitido; a partir de ${from}: ${allowed || "nenhum (final)"}.`,
  };
}

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

/**
 * The products an order of this source may take: the storefront's own, and on the public page only those it
 * shows (docs/api.md, "Public storefront": a product with `hide: true` is `product_not_found` there, as on the
 * page). The merchant's own /v1 orders may still take hidden products (phone and counter orders of items kept off
 * the page).
 */
function orderableProducts(storefrontId: string, source: OrderSource) {
  return and(
    eq(products.storefrontId, storefrontId),
    source === "public" ? or(isNull(products.hide), ne(products.hide, true)) : undefined,
  );
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

/**
 * The status customers see: the merchant's custom one, or the order status's own name in the storefront's
 * language. Events always carry an object (docs/api.md, "Orders": `customStatus` is `{id, label}`).
 */
function effectiveCustomStatus(row: OrderRow, language: string): CustomStatus {
  const custom = row.customStatus as CustomStatus | null;
  if (custom) return custom;
  const status = row.orderStatus as OrderStatus;
  return { id: status, label: (STATUS_LABELS[language] ?? STATUS_LABELS.en)?.[status] ?? status };
}

/**
 * `data` of order.created (the base of order.paid), exactly its fields (docs/webhooks.md, "`data` by type").
 */
function orderEventData(row: OrderRow, language: string) {
  const dto = toOrderDto(row);
  return {
    orderId: dto.id,
    publicOrderId: dto.publicOrderId,
    userId: dto.userId,
    menuId: dto.storefrontId,
    orderStatus: dto.orderStatus,
    customStatus: effectiveCustomStatus(row, language),
    totalPrice: dto.totalPrice,
    subtotalPrice: dto.subtotalPrice,
    deliveryPrice: dto.deliveryPrice,
    currency: dto.currency,
    // Exactly {title, amount, price} (docs/webhooks.md): the options are named in the title, priced in `price`.
    items: dto.items.map((item) => ({
      title: lineTitle(item.title, item.options),
      amount: item.amount,
      price: item.price,
    })),
    customer: dto.customer,
    paymentMethod: { name: dto.paymentMethod.name },
    paymentStatus: dto.paymentStatus,
    createdAt: dto.createdAt,
  };
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

type OrderSource = "api" | "public";

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

type StoredOptionGroups = OptionGroup[] | null;

/**
 * Takes stock for every line, product by product in id order (so concurrent orders lock rows in the same order):
 * one conditional UPDATE takes the product's stock (all its lines together) and locks the row; the lines'
 * options are then checked against the product as stored (`checkOptionChoices`), and options with stock have it
 * taken in a second UPDATE of the still-locked row. Untracked stock (null) is not limited. Each line's unit price
 * is the product's salePrice (else price) plus its options' prices.
 */
async function takeStock(
  db: Db,
  storefrontId: string,
  lines: CreateOrderInput["items"],
  source: OrderSource,
): Promise<{ items: OrderLine[]; isStockTaken: boolean }> {
  const byProduct = new Map<string, number[]>();
  lines.forEach((line, index) => {
    byProduct.set(line.productId, [...(byProduct.get(line.productId) ?? []), index]);
  });
  const items = new Array<OrderLine>(lines.length);
  let isStockTaken = false;
  for (const [productId, indexes] of [...byProduct.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const first = indexes[0] ?? 0;
    const amount = indexes.reduce((sum, index) => sum + (lines[index]?.amount ?? 0), 0);
    const [row] = await db
      .update(products)
      .set({
        stock: sql`case when ${products.stock} is null then null else ${products.stock} - ${amount} end`,
      })
      .where(
        and(
          eq(products.id, productId),
          orderableProducts(storefrontId, source),
          sql`(${products.stock} is null or ${products.stock} >= ${amount})`,
        ),
      )
      .returning({
        title: products.title,
        price: products.price,
        salePrice: products.salePrice,
        stock: products.stock,
        extraProductsCategory: products.extraProductsCategory,
      });
    if (!row) {
      const [exists] = await db
        .select({ title: products.title, stock: products.stock })
        .from(products)
        .where(and(eq(products.id, productId), orderableProducts(storefrontId, source)));
      if (!exists) throw new AppError("product_not_found", { param: `items[${first}].productId` });
      throw shortage(`items[${first}].amount`, `"${exists.title}"`, exists.stock ?? 0);
    }
    if (row.stock !== null) isStockTaken = true;
    const groups = row.extraProductsCategory as StoredOptionGroups;
    const basePrice = money(row.salePrice ?? row.price);
    const optionAmounts = new Map<string, { group: number; option: number; amount: number; index: number }>();
    for (const index of indexes) {
      const line = lines[index];
      if (!line) continue;
      const check = checkOptionChoices(groups, line.options, line.amount);
      const problem = check.problems[0];
      if (problem?.kind === "sold_out") {
        const option = groups?.[problem.group]?.extraProducts?.[problem.option]?.title ?? "";
        throw shortage(`items[${index}].options`, `"${option}" (${row.title})`, problem.left);
      }
      if (problem) {
        const words = describeOptionProblem(problem, groups);
        const param = `items[${index}].options`;
        throw new AppError("invalid_request", {
          param,
          detail: { en: `${param}: ${words.en}`, es: `${param}: ${words.es}`, pt: `${param}: ${words.pt}` },
        });
      }
      for (const option of check.options) {
        const key = `${option.group}:${option.option}`;
        const taken = optionAmounts.get(key);
        optionAmounts.set(key, {
          ...option,
          amount: (taken?.amount ?? 0) + line.amount,
          index: taken?.index ?? index,
        });
      }
      items[index] = {
        productId,
        title: row.title,
        amount: line.amount,
        price: money(basePrice + check.extraPrice),
        options: check.options,
      };
    }
    const updatedGroups = takeOptionStock(row.title, groups, [...optionAmounts.values()]);
    if (updatedGroups) {
      await db
        .update(products)
        .set({ extraProductsCategory: updatedGroups })
        .where(eq(products.id, productId));
      isStockTaken = true;
    }
  }
  return { items, isStockTaken };
}

/**
 * 400 `insufficient_stock` naming what ran short and how many are left, in every language: the customer's page
 * shows it next to the line (`param`).
 */
function shortage(param: string, what: string, left: number): AppError {
  const message: Record<Language, string> =
    left > 0
      ? {
          en: `There is not enough stock of ${what}: ${left} left.`,
          es: `No hay existencias suficientes de ${what}: quedan ${left}.`,
          pt: `Não há estoque suficiente de ${what}: restam ${left}.`,
        }
      : { en: `${what} is sold out.`, es: `${what} está agotado.`, pt: `${what} está esgotado.` };
  return new AppError("insufficient_stock", { param, message });
}

/**
 * The groups with each taken option's stock lowered (null when no chosen option tracks stock). The row is
 * locked by this transaction, so nothing changes between the read and this write. Several lines choosing the
 * same option count together: short of stock, the first such line is named.
 */
function takeOptionStock(
  productTitle: string,
  groups: StoredOptionGroups,
  taken: Array<{ group: number; option: number; amount: number; index: number }>,
): StoredOptionGroups {
  if (!groups) return null;
  let isChanged = false;
  const next = groups.map((group) => ({
    ...group,
    extraProducts: group.extraProducts?.map((option) => ({ ...option })) ?? group.extraProducts,
  }));
  for (const { group, option, amount, index } of taken) {
    const stored = next[group]?.extraProducts?.[option];
    if (!stored || stored.stock == null) continue;
    if (stored.stock < amount) {
      throw shortage(`items[${index}].options`, `"${stored.title}" (${productTitle})`, stored.stock);
    }
    stored.stock -= amount;
    isChanged = true;
  }
  return isChanged ? next : null;
}

async function findOrderForUpdate(db: Db, orderId: string, accountId: string): Promise<OrderRow> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId)))
    .for("update");
  if (!row) throw new AppError("order_not_found", { param: "orderId" });
  return row;
}

async function storefrontLanguage(db: Db, storefrontId: string): Promise<string> {
  const [row] = await db
    .select({ language: storefronts.language })
    .from(storefronts)
    .where(eq(storefronts.id, storefrontId));
  return row?.language ?? "es";
}

/**
 * Moves an order to a valid next orderStatus and/or sets a custom status (PATCH /v1/orders/{orderId}). A real
 * change records `order.status_updated` (slim: previous and new state) in the same transaction. Cancelling
 * puts the items' stock back.
 */
export async function updateOrderStatus(
  ctx: ServiceContext,
  args: { orderId: string; change: UpdateOrderInput },
): Promise<OrderDto> {
  const actor = authorize(ctx, "updateOrderStatus");
  const { orderId, change: input } = args;
  const now = ctx.now();
  const result = await inTransaction(ctx.db, async (db) => {
    const before = await findOrderForUpdate(db, orderId, actor.accountId);
    const previousStatus = before.orderStatus as OrderStatus;
    const nextStatus = input.orderStatus ?? previousStatus;
    if (nextStatus !== previousStatus && !ORDER_TRANSITIONS[previousStatus].includes(nextStatus)) {
      throw new AppError("invalid_order_transition", {
        param: "orderStatus",
        detail: transitionDetail(previousStatus, nextStatus),
      });
    }
    const nextCustom =
      input.customStatus === undefined ? (before.customStatus as CustomStatus | null) : input.customStatus;
    const isChanged =
      nextStatus !== previousStatus ||
      JSON.stringify(nextCustom) !== JSON.stringify(before.customStatus ?? null);
    if (!isChanged) return { row: before, emitted: false };
    const after = await writeStatusChange(
      db,
      before,
      { orderStatus: nextStatus, customStatus: nextCustom },
      now,
    );
    if (nextStatus === "cancelled") storefrontChangedAfterCommit(ctx, { storefrontId: before.storefrontId });
    return { row: after, emitted: true };
  });
  if (result.emitted) ctx.afterCommit(wakeDeliveries);
  return toOrderDto(result.row);
}

/**
 * Writes a status change of a locked order and records `order.status_updated` (slim: previous and new state) in
 * the caller's transaction; moving to `cancelled` puts the stock back. Shared by the merchant's PATCH and the
 * expiry of unaccepted public orders.
 */
async function writeStatusChange(
  db: Db,
  before: OrderRow,
  next: { orderStatus: OrderStatus; customStatus: CustomStatus | null },
  now: Date,
): Promise<OrderRow> {
  const [after] = await db
    .update(orders)
    .set({ orderStatus: next.orderStatus, customStatus: next.customStatus, updatedAt: now })
    .where(eq(orders.id, before.id))
    .returning();
  if (!after) throw new AppError("order_not_found", { param: "orderId" });
  if (next.orderStatus === "cancelled") await restock(db, before);
  const language = await storefrontLanguage(db, after.storefrontId);
  await emitEvent(
    db,
    {
      type: "order.status_updated",
      data: {
        orderId: after.id,
        publicOrderId: after.publicOrderId,
        userId: after.accountId,
        menuId: after.storefrontId,
        previousState: {
          orderStatus: before.orderStatus as OrderStatus,
          customStatus: effectiveCustomStatus(before, language),
        },
        newState: { orderStatus: next.orderStatus, customStatus: effectiveCustomStatus(after, language) },
        updatedAt: now.toISOString(),
      },
      accountId: after.accountId,
    },
    now,
  );
  return after;
}

/** How many stale public orders one run of `cancelStalePublicOrders` cancels at most (the next run takes the rest). */
const EXPIRY_BATCH = 500;

/**
 * Job `expire-public-orders` (docs/api.md, "Public storefront"; docs/operations.md, "Scheduled jobs"): every
 * public order still `pending` `PUBLIC_ORDER_LIMITS.pendingExpiryMinutes` after it was placed is cancelled as the
 * merchant's cancel would (its stock put back, `order.status_updated` to pending -> cancelled), each in its own
 * transaction. An order the merchant is changing at that moment is skipped (SKIP LOCKED) and re-checked next run.
 * Anonymous orders take stock before anyone has paid; unaccepted ones must not hold it for ever.
 */
export async function cancelStalePublicOrders(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - PUBLIC_ORDER_LIMITS.pendingExpiryMinutes * 60_000);
  const stale = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.source, "public"), eq(orders.orderStatus, "pending"), lt(orders.createdAt, cutoff)))
    .orderBy(asc(orders.createdAt))
    .limit(EXPIRY_BATCH);
  let cancelled = 0;
  for (const { id } of stale) {
    const storefrontId = await inTransaction(db, async (tx) => {
      const [before] = await tx
        .select()
        .from(orders)
        .where(and(eq(orders.id, id), eq(orders.orderStatus, "pending")))
        .for("update", { skipLocked: true });
      if (!before) return null;
      await writeStatusChange(
        tx,
        before,
        { orderStatus: "cancelled", customStatus: before.customStatus as CustomStatus | null },
        now,
      );
      return before.storefrontId;
    });
    if (!storefrontId) continue;
    cancelled++;
    notifyStorefrontChanged({ storefrontId });
  }
  if (cancelled > 0) wakeDeliveries();
  return cancelled;
}

/**
 * Puts a cancelled order's stock back: each product's tracked stock, and each chosen option's tracked stock while
 * the option is still where it was (same group and position, same title); an option the merchant has since
 * removed or moved gets nothing back.
 */
async function restock(db: Db, order: OrderRow): Promise<void> {
  for (const item of toOrderDto(order).items) {
    const [row] = await db
      .update(products)
      // A stock raised meanwhile to the column's maximum stays there rather than overflow the integer.
      .set({
        stock: sql`case when ${products.stock} is null then null
          else least(${products.stock}::bigint + ${item.amount}, 2147483647)::int end`,
      })
      .where(eq(products.id, item.productId))
      .returning({ extraProductsCategory: products.extraProductsCategory });
    const groups = row?.extraProductsCategory as StoredOptionGroups | undefined;
    if (!groups || item.options.length === 0) continue;
    let isChanged = false;
    const next = groups.map((group) => ({
      ...group,
      extraProducts: group.extraProducts?.map((option) => ({ ...option })) ?? group.extraProducts,
    }));
    for (const chosen of item.options) {
      const stored = next[chosen.group]?.extraProducts?.[chosen.option];
      if (!stored || stored.stock == null || stored.title !== chosen.title) continue;
      stored.stock = Math.min(stored.stock + item.amount, 2147483647);
      isChanged = true;
    }
    if (isChanged) {
      await db.update(products).set({ extraProductsCategory: next }).where(eq(products.id, item.productId));
    }
  }
}

/**
 * Marks an order paid with its payment method (POST /v1/orders/{orderId}/pay) and records `order.paid` (the
 * order.created fields plus `paymentMethod.id` and `paidAt`). Paying twice: 409 `order_already_paid`; a
 * cancelled order cannot be paid.
 */
export async function payOrder(
  ctx: ServiceContext,
  args: { orderId: string } & PayOrderInput,
): Promise<OrderDto> {
  const actor = authorize(ctx, "payOrder");
  const { orderId, ...input } = args;
  const now = ctx.now();
  const paid = await inTransaction(ctx.db, async (db) => {
    const before = await findOrderForUpdate(db, orderId, actor.accountId);
    if (before.paymentStatus === "paid") throw new AppError("order_already_paid", { param: "orderId" });
    if (before.orderStatus === "cancelled") {
      throw new AppError("invalid_order_transition", {
        param: "orderId",
        detail: {
          en: "A cancelled order cannot be paid.",
          es: "Un pedido cancelado no se puede pagar.",
          pt: "Um pedido cancelado não pode ser pago.",
        },
      });
    }
    const paymentMethod = { id: input.paymentMethod.id ?? newId("pay"), name: input.paymentMethod.name };
    const [after] = await db
      .update(orders)
      .set({ paymentStatus: "paid", paymentMethod, paidAt: now, updatedAt: now })
      .where(eq(orders.id, before.id))
      .returning();
    if (!after) throw new AppError("order_not_found", { param: "orderId" });
    const language = await storefrontLanguage(db, after.storefrontId);
    await emitEvent(
      db,
      {
        type: "order.paid",
        data: { ...orderEventData(after, language), paymentMethod, paidAt: now.toISOString() },
        accountId: after.accountId,
      },
      now,
    );
    return after;
  });
  ctx.afterCommit(wakeDeliveries);
  return toOrderDto(paid);
}

/** One order of the caller's account (GET /v1/orders/{orderId}). */
export async function getOrder(ctx: ServiceContext, input: { orderId: string }): Promise<OrderDto> {
  const actor = authorize(ctx, "getOrder");
  const { orderId } = input;
  const [row] = await ctx.db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, actor.accountId)));
  if (!row) throw new AppError("order_not_found", { param: "orderId" });
  return toOrderDto(row);
}

/** A storefront's orders, newest ids last, cursor pagination (GET /v1/storefronts/{storefrontId}/orders). */
export async function listOrders(
  ctx: ServiceContext,
  input: { storefrontId: string } & ListQuery,
): Promise<Page<OrderDto>> {
  const actor = authorize(ctx, "listOrders");
  const { storefrontId, ...query } = input;
  await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  const after = decodeCursor(query.cursor, "ord");
  const rows = await ctx.db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.storefrontId, storefrontId),
        eq(orders.accountId, actor.accountId),
        after ? gt(orders.id, after) : undefined,
      ),
    )
    .orderBy(asc(orders.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit, toOrderDto);
}

/** `getOrder` for many ids in ONE statement (the GraphQL loaders): per id, in order, the order or 404 `order_not_found`. */
export async function loadOrders(
  ctx: ServiceContext,
  input: { orderIds: readonly string[] },
): Promise<Array<OrderDto | AppError>> {
  const actor = authorize(ctx, "getOrder");
  const rows =
    input.orderIds.length === 0
      ? []
      : await ctx.db
          .select()
          .from(orders)
          .where(and(inArray(orders.id, [...input.orderIds]), eq(orders.accountId, actor.accountId)));
  return inRequestedOrder(
    input.orderIds,
    rows,
    (row) => row.id,
    toOrderDto,
    () => new AppError("order_not_found", { param: "orderId" }),
  );
}

/**
 * The orders of many storefronts, one page each, in ONE statement (GraphQL `Storefront.orders`), ordered by id
 * as `listOrders`; `cursor` applies to every storefront's list. A storefront that is not a live one of the
 * caller's account gets an empty page.
 */
export async function loadOrdersByStorefront(
  ctx: ServiceContext,
  input: { storefrontIds: readonly string[] } & ListQuery,
): Promise<Array<Page<OrderDto>>> {
  const actor = authorize(ctx, "listOrders");
  if (input.storefrontIds.length === 0) return [];
  const after = decodeCursor(input.cursor, "ord");
  const parent = liveStorefrontsOf(ctx.db, actor.accountId, input.storefrontIds).as("parent");
  const page = ctx.db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.storefrontId, parent.id),
        eq(orders.accountId, actor.accountId),
        after ? gt(orders.id, after) : undefined,
      ),
    )
    .orderBy(asc(orders.id))
    .limit(input.limit + 1)
    .as("page");
  const rows = await ctx.db.select().from(parent).innerJoinLateral(page, sql`true`);
  return toPages(
    input.storefrontIds,
    rows.map((row) => row.page),
    (row) => row.storefrontId,
    input.limit,
    toOrderDto,
  );
}

/**
 * The account's orders across its storefronts, ordered by id, cursor pagination (GraphQL `orders`, the dashboard's
 * orders page): optionally of one storefront (404 / 410 as `listOrders`), of one `orderStatus` and of one
 * `paymentStatus`; `newestFirst` walks the ids backwards (ids are in creation order). Orders of deleted storefronts
 * stay listed account-wide, as `getOrder` still answers them.
 */
export async function listAccountOrders(
  ctx: ServiceContext,
  input: {
    storefrontId?: string | null;
    status?: OrderStatus | null;
    paymentStatus?: PaymentStatus | null;
    newestFirst?: boolean;
  } & ListQuery,
): Promise<Page<OrderDto>> {
  const actor = authorize(ctx, "listOrders");
  if (input.storefrontId != null) {
    await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId: input.storefrontId });
  }
  const after = decodeCursor(input.cursor, "ord");
  const rows = await ctx.db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.accountId, actor.accountId),
        // orders has no index by account: reach the account's orders through its storefronts' index.
        input.storefrontId != null
          ? eq(orders.storefrontId, input.storefrontId)
          : inArray(
              orders.storefrontId,
              ctx.db
                .select({ id: storefronts.id })
                .from(storefronts)
                .where(eq(storefronts.accountId, actor.accountId)),
            ),
        input.status != null ? eq(orders.orderStatus, input.status) : undefined,
        input.paymentStatus != null ? eq(orders.paymentStatus, input.paymentStatus) : undefined,
        after ? (input.newestFirst ? lt(orders.id, after) : gt(orders.id, after)) : undefined,
      ),
    )
    .orderBy(input.newestFirst ? desc(orders.id) : asc(orders.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toOrderDto);
}

/** What the customer's status page shows of an order: no phone, no internal ids beyond the order's own. */
export type PublicOrderView = {
  order: Pick<
    OrderDto,
    | "id"
    | "publicOrderId"
    | "orderStatus"
    | "items"
    | "fulfillment"
    | "paymentStatus"
    | "subtotalPrice"
    | "deliveryPrice"
    | "totalPrice"
    | "currency"
    | "createdAt"
    | "updatedAt"
  > & {
    /** The merchant's custom status, or the order status's name in the storefront's language. */
    status: CustomStatus;
    paymentMethod: { name: string };
    customerName: string;
  };
  storefront: Pick<StorefrontDto, "id" | "name" | "slug" | "language" | "currency" | "branding" | "whatsapp">;
};

const STATUS_TOKEN_FORMAT = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * An order as its customer follows it (docs/api.md, "Order status page"): no actor; the token from the status
 * link proves the customer placed it. Its SHA-256 is compared in constant time with the stored one; a wrong or
 * missing token, an order not placed on the public page, or a deleted storefront are all 404
 * `order_not_found`.
 */
export async function getPublicOrder(
  ctx: ServiceContext,
  input: { orderId: string; token: string },
): Promise<PublicOrderView> {
  const notFound = () => new AppError("order_not_found", { param: "orderId" });
  const isWellFormed = STATUS_TOKEN_FORMAT.test(input.token);
  const [row] = await ctx.db
    .select({ order: orders, storefront: storefronts })
    .from(orders)
    .innerJoin(storefronts, eq(storefronts.id, orders.storefrontId))
    .where(eq(orders.id, input.orderId))
    .limit(1);
  // Hash and compare even when there is no such order, so a miss costs what a wrong token costs.
  const stored = row?.order.statusTokenHash ?? sha256Hex("no order");
  const isMatch = safeEqual(sha256Hex(isWellFormed ? input.token : ""), stored);
  if (!row || !isMatch || !isWellFormed || row.storefront.deletedAt || row.order.source !== "public") {
    throw notFound();
  }
  const dto = toOrderDto(row.order);
  const storefront = toStorefrontDto(row.storefront);
  return {
    order: {
      id: dto.id,
      publicOrderId: dto.publicOrderId,
      orderStatus: dto.orderStatus,
      status: effectiveCustomStatus(row.order, storefront.language),
      items: dto.items,
      fulfillment: dto.fulfillment,
      paymentMethod: { name: dto.paymentMethod.name },
      paymentStatus: dto.paymentStatus,
      customerName: dto.customer.name,
      subtotalPrice: dto.subtotalPrice,
      deliveryPrice: dto.deliveryPrice,
      totalPrice: dto.totalPrice,
      currency: dto.currency,
      createdAt: dto.createdAt,
      updatedAt: dto.updatedAt,
    },
    storefront: {
      id: storefront.id,
      name: storefront.name,
      slug: storefront.slug,
      language: storefront.language,
      currency: storefront.currency,
      branding: storefront.branding,
      whatsapp: storefront.whatsapp,
    },
  };
}

/** Drops public-order rate-limit windows that have ended (job `purge-rate-limits`). */
export async function purgePublicOrderRateLimits(db: Db, now: Date): Promise<number> {
  const seconds = Math.floor(now.getTime() / 1000);
  const perIp = await db
    .delete(publicOrderRateLimits)
    .where(lt(publicOrderRateLimits.windowStart, seconds - PUBLIC_ORDER_LIMITS.ipWindowSeconds))
    .returning({ key: publicOrderRateLimits.key });
  // The storefront windows are the longer ones: a past global window goes with them, a few minutes later.
  const longest = Math.max(
    PUBLIC_ORDER_LIMITS.storefrontWindowSeconds,
    PUBLIC_ORDER_LIMITS.globalWindowSeconds,
  );
  const perStorefront = await db
    .delete(publicOrderStorefrontLimits)
    .where(lt(publicOrderStorefrontLimits.windowStart, seconds - longest))
    .returning({ key: publicOrderStorefrontLimits.key });
  return perIp.length + perStorefront.length;
}
