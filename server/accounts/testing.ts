import { randomBytes } from "node:crypto";
import { operatorContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { asAdapter, serviceContextFor } from "@/server/testing/context";
import { createDeveloperKey } from "./operator";
import { bootstrapUser as bootstrapUserService } from "./partners";
import { BootstrapUserInput } from "./schema";

export function uniqueEmail(label = "user"): string {
  return `${label}-${randomBytes(5).toString("hex")}@example.com`;
}

/** A developer account with one developer key (as `npm run cli -- dev-key create` makes). */
export async function createDeveloper(options: { dailyLimit?: number; rpm?: number; email?: string } = {}) {
  const email = options.email ?? uniqueEmail("dev");
  const created = await createDeveloperKey(operatorContext({ db: await dbReady() }), {
    email,
    name: "test developer",
    dailyLimit: options.dailyLimit ?? 100_000,
    rpm: options.rpm ?? 100_000,
  });
  return { ...created, email };
}

/** A bootstrapped (unverified) user, made by the developer key through the service; its id and first user key. */
export async function bootstrapUser(
  developerKey: string,
  options: { email?: string; language?: string } = {},
) {
  const email = options.email ?? uniqueEmail("merchant");
  const input = BootstrapUserInput.parse({ email, language: options.language ?? "en" });
  const result = await asAdapter(await serviceContextFor(developerKey), (ctx) =>
    bootstrapUserService(ctx, input),
  );
  return { userId: result.user.id, userKey: result.userKey, email };
}
