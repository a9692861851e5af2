import { isLanguage, type Language, pickLanguage } from "@/server/errors";
import { LANGUAGE_COOKIE, readCookie } from "@/server/kit/cookies";

/**
 * The language of a request to a door a person uses in the browser (forms, the dashboard's tRPC): the
 * `marea_lang` cookie (the language switcher's choice), then Accept-Language, then English.
 */
export function requestLanguage(request: Request): Language {
  return chosenLanguage(readCookie(request, LANGUAGE_COOKIE), request.headers.get("accept-language"));
}

/** `requestLanguage` from values already read (a server component's cookie store and headers). */
export function chosenLanguage(
  cookie: string | null | undefined,
  acceptLanguage: string | null | undefined,
): Language {
  return isLanguage(cookie) ? cookie : pickLanguage(acceptLanguage);
}

/**
 * The language an API client asks for (/v1, GraphQL, MCP, the public checkout, whose page sends its own):
 * Accept-Language only, then English. A browser's interface cookie does not choose an API answer's language.
 */
export function acceptLanguageOf(request: Request): Language {
  return pickLanguage(request.headers.get("accept-language"));
}
