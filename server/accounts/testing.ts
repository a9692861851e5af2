import { randomBytes } from "node:crypto";
import { dbReady } from "@/server/db/client";
import { call } from "@/server/testing/api";
import { createDeveloperKey } from "./service";

export function uniqueEmail(label = "user"): string {
  return `${label}-${randomBytes(5).toString("hex")}@example.com`;
}

/** A developer account with one developer key (as `npm run cli -- dev-key create` makes). */
export async function createDeveloper(options: { dailyLimit?: number; rpm?: number; email?: string } = {}) {
  const db = await dbReady();
  const email = options.email ?? uniqueEmail("dev");
  const created = await createDeveloperKey(
    db,
    { email, name: "test developer", dailyLimit: options.dailyLimit ?? 100_000, rpm: options.rpm ?? 100_000 },
    new Date(),
  );
  return { ...created, email };
}

/** A bootstrapped (unverified) user through the real API; returns its id and first user key. */
export async function bootstrapUser(
  developerKey: string,
  options: { email?: string; language?: string } = {},
) {
  const email = options.email ?? uniqueEmail("merchant");
  const result = await call<{ user: { id: string }; userKey: string }>("POST", "/v1/users", {
    key: developerKey,
    body: { email, language: options.language ?? "en" },
  });
  if (result.status !== 201) throw new Error(`bootstrap failed: ${result.status} ${result.text}`);
  return { userId: result.body.user.id, userKey: result.body.userKey, email };
}
