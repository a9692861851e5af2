import { sql } from "drizzle-orm";
import { dbReady } from "@/server/db/client";

/** GET /healthz: 200 `{ok: true}` when the database answers, else 503. Never authenticated or rate limited. */
export async function checkHealth(): Promise<{
  status: number;
  body: { ok: boolean; database: "up" | "down" };
}> {
  try {
    const db = await withTimeout(dbReady(), 3000);
    await withTimeout(db.execute(sql`select 1`), 3000);
    return { status: 200, body: { ok: true, database: "up" } };
  } catch {
    return { status: 503, body: { ok: false, database: "down" } };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
