import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/server/env";

/**
 * Secrets at rest (webhook signing secrets, stored idempotent responses) are encrypted with AES-256-GCM
 * (docs/operations.md, "Data at rest"; SECRETS_KEY in docs/webhooks.md, "Configuration").
 *
 * The key: SECRETS_KEY when set (64 hex characters or base64 of 32 bytes are used as is; any other string is
 * hashed with SHA-256 into 32 bytes), else 32 random bytes generated ONCE into `${DATA_DIR}/secrets.key`
 * (mode 0600) and read from there afterwards. Several processes sharing one PostgreSQL database must share
 * the key: set SECRETS_KEY, or point them at the same DATA_DIR.
 *
 * Stored form: `v1:<iv base64url>:<tag base64url>:<ciphertext base64url>`.
 */

let cachedKey: { source: string; key: Buffer } | undefined;

function keyFromString(value: string): Buffer {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed, "base64");
    if (decoded.length === 32) return decoded;
  }
  return createHash("sha256").update(trimmed).digest();
}

function keyFile(): string {
  return path.resolve(env().DATA_DIR, "secrets.key");
}

function loadOrCreateKeyFile(file: string): Buffer {
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    // `wx`: exactly one process creates it; the others read what it wrote.
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  for (let i = 0; i < 50; i++) {
    const text = readFileSync(file, "utf8").trim();
    if (text.length > 0) return keyFromString(text);
  }
  throw new Error(`${file} is empty`);
}

function secretsKey(): Buffer {
  const configured = env().SECRETS_KEY;
  const source = configured ? `env:${configured}` : `file:${keyFile()}`;
  if (cachedKey?.source === source) return cachedKey.key;
  const key = configured ? keyFromString(configured) : loadOrCreateKeyFile(keyFile());
  cachedKey = { source, key };
  return key;
}

/** A new signing secret: 32 random bytes as 64 lowercase hex characters (docs/api.md, "Identifiers"). */
export function newSigningSecret(): string {
  return randomBytes(32).toString("hex");
}

export function encryptSecret(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", secretsKey(), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ["v1", iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(
    ":",
  );
}

export function decryptSecret(stored: string): string {
  const [version, iv, tag, ciphertext] = stored.split(":");
  if (version !== "v1" || !iv || !tag || ciphertext === undefined)
    throw new Error("Unknown signing secret format");
  const decipher = createDecipheriv("aes-256-gcm", secretsKey(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString(
    "utf8",
  );
}

// Decrypting once per (ciphertext) is enough: a rotation writes a new ciphertext, so the cache never serves
// an old secret for a new version. Bounded so a long-running worker does not grow without end.
const decrypted = new Map<string, string>();

export function decryptSecretCached(stored: string): string {
  const hit = decrypted.get(stored);
  if (hit !== undefined) return hit;
  const value = decryptSecret(stored);
  if (decrypted.size >= 1000) decrypted.clear();
  decrypted.set(stored, value);
  return value;
}
