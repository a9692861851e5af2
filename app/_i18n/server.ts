import { cookies, headers } from "next/headers";
import { LANGUAGE_COOKIE } from "@/server/kit/cookies";
import { type Language, resolveLanguage, type Translate, translator } from "./catalogue";

/**
 * The interface language of this request, for server components: the `marea_lang` cookie, then
 * `accountLanguage` (pass the signed-in account's language once the caller has it), then Accept-Language,
 * then English.
 */
export async function getLanguage(options: { accountLanguage?: string | null } = {}): Promise<Language> {
  const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
  return resolveLanguage({
    cookie: cookieStore.get(LANGUAGE_COOKIE)?.value,
    accountLanguage: options.accountLanguage,
    acceptLanguage: headerList.get("accept-language"),
  });
}

/** `t(key, vars)` in this request's language, for server components. */
export async function getT(options: { accountLanguage?: string | null } = {}): Promise<Translate> {
  return translator(await getLanguage(options));
}
