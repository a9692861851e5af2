import { authenticateKey } from "@/server/accounts/keys";
import type { ServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";

/** A service context acting as the owner of `rawKey`, as the dashboard or an adapter would build it. */
export async function serviceContextFor(
  rawKey: string,
  now: () => Date = () => new Date(),
): Promise<ServiceContext> {
  const db = await dbReady();
  return {
    db,
    actor: await authenticateKey(db, rawKey),
    requestId: "req_test",
    language: "en",
    now,
    afterCommit: (task) => {
      void Promise.resolve().then(task);
    },
  };
}
