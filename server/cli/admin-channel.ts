import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/server/env";
import { randomBase62, safeEqual } from "@/server/lib/crypto";

/**
 * How a CLI reaches a running server that holds the embedded database (docs/operations.md, "The command line
 * beside a running server"): the server writes its loopback port and a random token into `.data/admin.json`
 * (mode 0600); the CLI posts its argv to /api/admin/cli with that token. Only used with PGlite: with
 * PostgreSQL the CLI connects itself.
 */
export type AdminChannel = { pid: number; port: number; token: string };

function channelFile(): string {
  return path.resolve(env().DATA_DIR, "admin.json");
}

export function publishAdminChannel(port: number): AdminChannel {
  const channel = { pid: process.pid, port, token: randomBase62(40) };
  writeFileSync(channelFile(), JSON.stringify(channel), { mode: 0o600 });
  return channel;
}

export function readAdminChannel(): AdminChannel | null {
  const file = channelFile();
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as AdminChannel;
  } catch {
    return null;
  }
}

let current: AdminChannel | null = null;

export function setCurrentAdminChannel(channel: AdminChannel): void {
  current = channel;
}

export function isValidAdminToken(token: string | null): boolean {
  const channel = current ?? readAdminChannel();
  if (!token || !channel || channel.pid !== process.pid) return false;
  return safeEqual(token, channel.token);
}
