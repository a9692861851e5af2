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

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
