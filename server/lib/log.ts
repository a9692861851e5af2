import { env } from "@/server/env";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** One JSON line per event on stderr. Callers never pass secrets, raw keys or request bodies. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  const threshold = ORDER[env().LOG_LEVEL];
  if (ORDER[level] < threshold) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields }, errorReplacer);
  process.stderr.write(`${line}\n`);
}

/**
 * The access log (docs/operations.md, "Access log"): one JSON line per request on stdout, at level info (so
 * LOG_LEVEL=warn and above silence it). The production start writes it with the request's id, door, route
 * pattern, status and duration; it never holds headers (Authorization, cookies) or the query string.
 */
export function accessLog(fields: Record<string, unknown>): void {
  if (ORDER.info < ORDER[env().LOG_LEVEL]) return;
  process.stdout.write(
    `${JSON.stringify({ level: "info", time: new Date().toISOString(), msg: "request", ...fields })}\n`,
  );
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: redactParams(value.message), stack: redactParams(value.stack) };
  }
  return value;
}

/**
 * drizzle's failed-query errors end with `params: <every bound value>`: request bodies, stored responses,
 * emails. The SQL text stays (it is ours and says what failed); the values never reach the log.
 */
export function redactParams<T extends string | undefined>(text: T): T {
  return (text?.replace(/\nparams: [\s\S]*?(?=\n\s+at |$)/, "\nparams: [redacted]") ?? text) as T;
}
