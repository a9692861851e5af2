import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { revokeDeveloperKeyAndCascade } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { newId } from "@/server/lib/ids";
import { operatorContext, serviceContextFor } from "@/server/testing/context";
import { sendTestEvent } from "@/server/webhooks/endpoints";
import { emitEvent, sampleEventData } from "@/server/webhooks/events";
import type { EventType } from "@/server/webhooks/schema";
import { createTestEndpoint, setTestEnv } from "@/server/webhooks/testing";

// drizzle/0013_webhook_event_audience_backfill.sql gives the events recorded before the audience columns existed the
// audience `emitEvent` gives new ones (docs/webhooks.md, "After an outage": the list works from the first day).
setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });

it("the backfill migration gives existing events exactly the audience emitEvent records", async () => {
  const db = await dbReady();
  const emit = async (type: EventType, accountId: string) => {
    const data = sampleEventData(type, { developerKeyId: newId("key"), now: new Date() });
    await inTransaction(db, (tx) => emitEvent(tx, { type, data: data as never, accountId }, new Date()));
  };
  const developer = await createDeveloper();
  const revoked = await createDeveloper();
  const user = await bootstrapUser(developer.key);
  const orphan = await bootstrapUser(revoked.key);
  for (const type of ["user.verified", "order.created", "order.paid", "order.status_updated"] as const) {
    await emit(type, user.userId);
    await emit(type, orphan.userId);
  }
  await revokeDeveloperKeyAndCascade(await operatorContext(), { keyId: revoked.keyId });
  await emit("order.created", orphan.userId);
  await emit("user.cancelled", orphan.userId);
  const endpoint = await createTestEndpoint(developer.key, { url: "http://127.0.0.1:9/hook" });
  await sendTestEvent(await serviceContextFor(developer.key), {
    endpointId: endpoint.endpointId,
    type: "order.paid",
  });

  const audience = () =>
    queryRows<Record<string, unknown>>(
      db,
      sql`select id, merchant_account_id, developer_account_id, developer_key_id from webhook_events order by id`,
    );
  const recorded = await audience();
  // The four events before the revocation, its own user.cancelled (key_revoked) and ours; not the order after it.
  expect(recorded.filter((row) => row.developer_account_id === revoked.accountId)).toHaveLength(6);
  await db.execute(
    sql`update webhook_events set merchant_account_id = null, developer_account_id = null, developer_key_id = null`,
  );
  const migration = readFileSync("drizzle/0013_webhook_event_audience_backfill.sql", "utf8");
  for (const statement of migration.split("--> statement-breakpoint")) await db.execute(sql.raw(statement));
  expect(await audience()).toEqual(recorded);
});
