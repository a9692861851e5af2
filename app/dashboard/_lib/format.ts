/**
 * Dates on the dashboard: in UTC, named as such, so the server's render and the browser's hydration agree
 * whatever the machine's time zone (docs/ui.md, "API keys").
 */
export function formatDateTime(iso: string, language: string): string {
  // Components, not dateStyle/timeStyle: browsers refuse those together with timeZoneName.
  return new Intl.DateTimeFormat(language, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
    timeZoneName: "short",
  }).format(new Date(iso));
}

export function formatDate(iso: string, language: string): string {
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeZone: "UTC" }).format(new Date(iso));
}

export function formatNumber(value: number, language: string): string {
  return new Intl.NumberFormat(language).format(value);
}
