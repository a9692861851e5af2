import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, newSigningSecret } from "@/server/lib/secrets";
import { setTestEnv } from "@/server/webhooks/testing";

// docs/operations.md, "Data at rest": SECRETS_KEY encrypts signing secrets at rest; unset, a key is generated
// once.
const originalDataDir = process.env.DATA_DIR;
afterAll(() => setTestEnv({ DATA_DIR: originalDataDir, SECRETS_KEY: undefined }));

describe("signing secret encryption", () => {
  it("new secrets are 64 lowercase hex characters", () => {
    expect(newSigningSecret()).toMatch(/^[0-9a-f]{64}$/);
    expect(newSigningSecret()).not.toBe(newSigningSecret());
  });

  it("round-trips, never stores the plaintext, and uses a fresh IV each time", () => {
    setTestEnv({ SECRETS_KEY: "0123456789abcdef".repeat(4) });
    const secret = newSigningSecret();
    const a = encryptSecret(secret);
    const b = encryptSecret(secret);
    expect(a).not.toContain(secret);
    expect(a).not.toBe(b);
    expect(decryptSecret(a)).toBe(secret);
    expect(decryptSecret(b)).toBe(secret);
  });

  it("detects tampering and a different key (AES-256-GCM)", () => {
    setTestEnv({ SECRETS_KEY: "first key" });
    const stored = encryptSecret("s".repeat(64));
    const [v, iv, tag, ct] = stored.split(":");
    const tampered = Buffer.from(ct ?? "", "base64url");
    tampered[0] = (tampered[0] ?? 0) ^ 0xff;
    const flipped = `${v}:${iv}:${tag}:${tampered.toString("base64url")}`;
    expect(() => decryptSecret(flipped)).toThrow();
    setTestEnv({ SECRETS_KEY: "second key" });
    expect(() => decryptSecret(stored)).toThrow();
  });

  it("without SECRETS_KEY, generates one key into DATA_DIR/secrets.key (0600) and keeps using it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "marea-secrets-"));
    setTestEnv({ SECRETS_KEY: undefined, DATA_DIR: dir });
    const stored = encryptSecret("x".repeat(64));
    const file = path.join(dir, "secrets.key");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, "utf8");
    expect(decryptSecret(stored)).toBe("x".repeat(64));
    encryptSecret("y".repeat(64));
    expect(readFileSync(file, "utf8")).toBe(key);
  });
});
