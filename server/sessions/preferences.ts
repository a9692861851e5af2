import { isAppError } from "@/server/errors";
import { isAppOrigin, isSameOrigin } from "@/server/gate/origin";
import { BODY_LIMITS } from "@/server/kit/body";
import { LANGUAGE_COOKIE, THEME_COOKIE } from "@/server/kit/cookies";
import { readFormBody, refusedForm, seeOther } from "@/server/kit/form";
import { preferenceCookie } from "./cookies";
import { sameSitePath } from "./next-path";

const LANGUAGES = new Set(["es", "en", "pt"]);
const THEMES = new Set(["light", "dark", "system"]);

/** The page the form was on (same-origin Referer), so the switch lands back where the person was. */
function backPath(request: Request): string {
  const referer = request.headers.get("referer");
  if (!referer) return "/";
  try {
    const url = new URL(referer);
    if (!isAppOrigin(url.origin, request)) return "/";
    return sameSitePath(`${url.pathname}${url.search}`) ?? "/";
  } catch {
    return "/";
  }
}

/**
 * POST /preferences: the language switcher (`lang=es|en|pt`) and the theme toggle (`theme=light|dark|system`)
 * of every page. Plain forms, so they work before (or without) JavaScript; the choice is a cookie read on the
 * server, so the next page is rendered in it from the first byte. The form is read through the door kit's capped
 * reader (16 KiB; docs/security.md, "Request bodies and door limits").
 */
export async function handlePreferences(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return new Response(null, { status: 403 });
  let form: URLSearchParams;
  try {
    form = await readFormBody(request, BODY_LIMITS.form);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return refusedForm(request, error);
  }
  const cookies: string[] = [];
  const lang = form.get("lang");
  const theme = form.get("theme");
  if (typeof lang === "string" && LANGUAGES.has(lang)) cookies.push(preferenceCookie(LANGUAGE_COOKIE, lang));
  if (typeof theme === "string" && THEMES.has(theme)) cookies.push(preferenceCookie(THEME_COOKIE, theme));
  return seeOther(backPath(request), cookies);
}
