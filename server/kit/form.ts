import { AppError, messageFor } from "@/server/errors";
import { readBoundedBody } from "./body";
import { requestLanguage } from "./language";

/**
 * The body of an HTML form post (`application/x-www-form-urlencoded`, what every form of the app sends), read
 * through the capped reader and parsed from the capped text with URLSearchParams (docs/security.md, "Request
 * bodies and door limits"). `multipart/form-data` is refused before a byte is read: no form of the app uploads
 * a file, and a multipart parser would buffer whatever it is sent. Another type (or none) reads as no fields,
 * which the door's own checks then refuse as missing. Throws the capped reader's AppErrors.
 */
export async function readFormBody(request: Request, maxBytes: number): Promise<URLSearchParams> {
  const type = mediaTypeOf(request);
  if (type === "multipart/form-data") throw multipartRefused();
  if (type !== "application/x-www-form-urlencoded") return new URLSearchParams();
  return new URLSearchParams(await readBoundedBody(request, maxBytes));
}

/** The form's fields as a record (a repeated field keeps its last value). */
export function formFields(form: URLSearchParams): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of form) fields[key] = value;
  return fields;
}

/** The media type of the request's body, lowercase, without parameters ("" when none is declared). */
export function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
}

/** 303 See Other to `location` (a form's answer: the browser then GETs the page), with any cookies to set. */
export function seeOther(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/**
 * A form post refused before any work (another site, a forged token, a body over the cap): the catalogue's
 * message as plain text in the page's language, with the error's status.
 */
export function refusedForm(request: Request, error: AppError): Response {
  return new Response(messageFor(error, requestLanguage(request)), {
    status: error.status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}

function multipartRefused(): AppError {
  return new AppError("invalid_request", {
    param: "content-type",
    detail: {
      en: "Send the form as application/x-www-form-urlencoded; multipart/form-data is not accepted.",
      es: "Envía el formulario como application/x-www-form-urlencoded; no se acepta multipart/form-data.",
      pt: "Envie o formulário como application/x-www-form-urlencoded; multipart/form-data não é aceito.",
    },
  });
}
