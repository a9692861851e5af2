import { closeDb, dbReady, pgliteLockHolder } from "@/server/db/client";
import { env } from "@/server/env";
import { isAppError } from "@/server/errors";
import { readAdminChannel } from "./admin-channel";
import { cliError } from "./admin-endpoint";
import { runCommand } from "./commands";

/**
 * `npm run cli -- <command>`: prints one JSON object on stdout. With PostgreSQL it connects itself; with the
 * embedded database it goes through the running server when one holds the data folder (two processes must
 * never open one PGlite folder), and opens the folder itself only when no server does.
 */
async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const holder = env().DATABASE_URL ? null : pgliteLockHolder();
  if (holder !== null && holder !== process.pid) return viaServer(argv);
  try {
    const result = await runCommand(await dbReady(), argv);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (isAppError(error)) {
      process.stdout.write(`${JSON.stringify(cliError(error))}\n`);
      return 1;
    }
    throw error;
  } finally {
    await closeDb();
  }
}

async function viaServer(argv: string[]): Promise<number> {
  const channel = readAdminChannel();
  if (!channel)
    throw new Error(
      "The embedded database is held by a running server that has not published its admin channel yet; retry in a moment.",
    );
  const response = await fetch(`http://127.0.0.1:${channel.port}/api/admin/cli`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-admin-token": channel.token },
    body: JSON.stringify({ argv }),
  });
  process.stdout.write(`${await response.text()}\n`);
  return response.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
