import { randomInt } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import { type Db, dbReady } from "@/server/db/client";
import { mailOutbox } from "@/server/mail/tables";
import type { SignInLanguage, SignInResult } from "./schema";
import { requestSignInCode, verifySignInCode } from "./service";

/** A client address of its own per call, so tests never share a per-IP sign-in bucket by accident. */
export function uniqueIp(): string {
  return `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

/** The code in the newest sign-in mail to `email` (read from the mail outbox), or null. */
export async function latestSignInCode(email: string, db?: Db): Promise<string | null> {
  const handle = db ?? (await dbReady());
  const [mail] = await handle
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.to, email.toLowerCase()), eq(mailOutbox.kind, "sign_in_code")))
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(1);
  return mail?.text.match(/\b(\d{6})\b/)?.[1] ?? null;
}

/** The whole sign-in through the mailed code, as the /signin pages do it. */
export async function signInThroughMail(
  email: string,
  options: { now?: Date; language?: SignInLanguage; ip?: string; replacingSessionToken?: string | null } = {},
): Promise<SignInResult> {
  const db = await dbReady();
  const now = options.now ?? new Date();
  const ip = options.ip ?? uniqueIp();
  const language = options.language ?? "en";
  await requestSignInCode(db, { email, ip, language }, now);
  const code = await latestSignInCode(email, db);
  if (!code) throw new Error(`no sign-in code mailed to ${email}`);
  return verifySignInCode(
    db,
    { email, code, ip, language, replacingSessionToken: options.replacingSessionToken },
    now,
  );
}

/** Like `signInThroughMail`, for tests that expect a session (not the bootstrap-account question). */
export async function signedInSession(email: string, options: Parameters<typeof signInThroughMail>[1] = {}) {
  const result = await signInThroughMail(email, options);
  if (result.kind !== "signed_in") throw new Error(`expected a session for ${email}, got ${result.kind}`);
  return result;
}
