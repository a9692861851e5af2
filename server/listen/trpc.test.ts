import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { asAdapter, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { createCaller } from "@/server/wiring/trpc";
import { createListenSession, openListenStream } from "./service";

// The dashboard's listen-session procedures (docs/ui.md, "Webhooks"): the account's sessions through the session
// door, Close from there, another account's session not found, and a dashboard session cannot open one.

async function callerFor(accountId: string) {
  return createCaller({ service: await sessionContextFor(accountId), sameOrigin: true });
}

async function accountOf(key: string): Promise<string> {
  const actor = (await serviceContextFor(key)).actor;
  if (!actor) throw new Error("no actor");
  return actor.accountId;
}

describe("listen sessions in the dashboard (tRPC)", () => {
  it("lists the account's sessions, closes one (its stream then ends with `closed`, reason dashboard)", async () => {
    const developer = await createDeveloper();
    const opened = await asAdapter(await serviceContextFor(developer.key), (c) =>
      createListenSession(c, { forwardTo: "http://localhost:4000/hooks" }),
    );
    const stream = await openListenStream(
      await serviceContextFor(developer.key),
      { sessionId: opened.session.id, lastEventId: null },
      { pollMs: 50 },
    );
    const caller = await callerFor(await accountOf(developer.key));
    const listed = await caller.listen.list();
    expect(listed.data.map((s) => [s.id, s.status, s.connected])).toEqual([
      [opened.session.id, "open", true],
    ]);

    const closed = await caller.listen.close({ sessionId: opened.session.id });
    expect(closed).toMatchObject({ status: "closed", closedReason: "dashboard", connected: false });
    expect((await stream.messages.next()).value).toEqual({ kind: "closed", reason: "dashboard" });
    expect((await caller.listen.list()).data[0]).toMatchObject({
      status: "closed",
      closedReason: "dashboard",
    });
  });

  it("another account's session is listen_session_not_found; a dashboard session cannot open one", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const opened = await asAdapter(await serviceContextFor(developer.key), (c) =>
      createListenSession(c, { forwardTo: "http://localhost:4000/hooks" }),
    );
    const stranger = await callerFor(await accountOf(other.key));
    const error = await stranger.listen.close({ sessionId: opened.session.id }).then(
      () => null,
      (e: unknown) => e as TRPCError & { cause: { code: string } },
    );
    expect(error).toBeInstanceOf(TRPCError);
    expect(error?.cause.code).toBe("listen_session_not_found");
    expect((await stranger.listen.list()).data).toEqual([]);
    await expect(
      createListenSession(await sessionContextFor(await accountOf(other.key)), { forwardTo: "x" }),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
  });
});
