/** Session lifetimes, apart from the service so proxy.ts can read them without loading the database code. */
export const DAY_MS = 86_400_000;
export const SESSION_TTL_MS = 30 * DAY_MS;
/** Sliding expiry moves `expires_at` forward only when this much time passed since it last moved. */
export const SESSION_EXTEND_AFTER_MS = DAY_MS;
