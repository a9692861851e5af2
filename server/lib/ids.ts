import { randomBytes } from "node:crypto";
import { monotonicFactory } from "ulid";

/**
 * Ids are a prefix plus a lowercase ULID (docs/api.md, "Identifiers"). The factory is monotonic, so ids made
 * in the same millisecond still sort in creation order and "ordered by id" is creation order. Its randomness
 * comes from a pooled CSPRNG buffer: one syscall per 4 KiB instead of one per character.
 */
let pool = randomBytes(4096);
let poolOffset = 0;

function pooledRandom(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  return (pool[poolOffset++] as number) / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

export type IdPrefix =
  | "usr"
  | "key"
  | "stf"
  | "prd"
  | "ord"
  | "evt"
  | "dlv"
  | "req"
  | "mail"
  | "oac"
  | "pay"
  | "tok"
  | "oar"
  | "lsn"
  | "fil";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

/**
 * Webhook endpoint ids have their own fixed format: `mk_we_` + 16 lowercase hex (docs/api.md, "Identifiers").
 */
export function newWebhookEndpointId(): string {
  return `mk_we_${randomBytes(8).toString("hex")}`;
}
