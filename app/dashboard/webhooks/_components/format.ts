/**
 * Times on the webhook pages are UTC, written the same way on the server and in the browser (no locale or time
 * zone data involved, so the server's render and the browser's hydration always agree): `2026-05-12 10:00:03`.
 */
export function formatUtc(iso: string | null): string {
  if (!iso) return "";
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** `datetime-local` value (UTC) for an ISO time, and back. */
export function toDateTimeLocal(date: Date): string {
  return date.toISOString().slice(0, 16);
}

export function fromDateTimeLocal(value: string): string | null {
  const date = new Date(`${value}:00Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Success rate in whole percent, or null when there were no attempts. */
export function successRate(attempts: number, successes: number): number | null {
  return attempts === 0 ? null : Math.round((successes / attempts) * 100);
}

/** Pretty-printed JSON when the text is JSON, else the text as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The endpoint's page (developer endpoints carry their scope in the query). */
export function endpointHref(endpoint: { endpointId: string; scope: string }): string {
  return `/dashboard/webhooks/${endpoint.endpointId}${endpoint.scope === "developer" ? "?scope=developer" : ""}`;
}
