/**
 * The figures that bound orders (docs/api.md, "Orders" and "Public storefront"; docs/security.md, "Abuse limits
 * and product decisions"). Pure constants with no imports: the schemas, the service and the storefront page's
 * cart (client code) read the same numbers.
 */

/** Every order, whoever places it: the merchant's /v1 phone and counter orders keep these. */
export const ORDER_LIMITS = {
  maxLines: 100,
  maxUnitsPerLine: 1000,
  maxOptionsPerLine: 50,
  /**
   * What the order stores (its lines with their titles and options, the customer and the payment method) as
   * JSON, in bytes: the field maxima bound every text, this bounds their product (100 lines of long titles and
   * 50 options each), so no order row or `order.created` payload can grow past it.
   */
  maxStoredBytes: 256 * 1024,
} as const;

/**
 * Orders from the public page: anonymous, so they are held far below the merchant's own (an order takes stock
 * before anyone has paid; docs/security.md).
 */
export const PUBLIC_ORDER_LIMITS = {
  maxLines: 20,
  maxUnitsPerLine: 20,
  perIpPerMinute: 10,
  ipWindowSeconds: 60,
  perStorefront: 30,
  storefrontWindowSeconds: 10 * 60,
  /** Across every storefront of this deployment. */
  perMinuteInAll: 600,
  globalWindowSeconds: 60,
  /** A `pending` public order the merchant has not accepted by then is cancelled and its stock put back. */
  pendingExpiryMinutes: 60,
} as const;
