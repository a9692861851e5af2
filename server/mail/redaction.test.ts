import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueEmail } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { requestSignInCode } from "@/server/sessions/service";
import { uniqueIp } from "@/server/sessions/testing";
import { setTestEnv } from "@/server/webhooks/testing";
import { runJob } from "@/server/wiring/jobs";
import { deliverPendingMail, listOutbox, queueMail } from "./service";
import { startSmtp } from "./testing";

// docs/operations.md, "Mail": a code mailed is never kept readable in the outbox once it has left.

let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
});

afterAll(async () => {
  setTestEnv({ SMTP_URL: undefined });
  await smtp?.close();
});

describe("L7: codes are not kept in clear once sent", () => {
  it("L7: a delivered sign-in code mail keeps its subject without the code and no text; the inbox got both", async () => {
    setTestEnv({ SMTP_URL: smtp.url });
    try {
      const db = await dbReady();
      const email = uniqueEmail("sent");
      await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, new Date());
      // Sent right after the commit, off the request path: wait for it to arrive and be marked sent.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        await deliverPendingMail(db);
        const [row] = await listOutbox(db, { to: email });
        if (row?.status === "sent" && smtp.mails.some((mail) => mail.to.includes(email))) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const received = smtp.mails.find((mail) => mail.to.includes(email));
      expect(received?.raw).toMatch(/Your Marea sign-in code: \d{6}/);
      expect(received?.raw).toMatch(/Your code is \d{6}\./);
      const [row] = await listOutbox(db, { to: email });
      expect(row).toMatchObject({ status: "sent", subject: "Your Marea sign-in code", text: "" });
    } finally {
      setTestEnv({ SMTP_URL: undefined });
    }
  });

  it("L7: a code mail given up after 5 failed sends is cleared too; a mail without a code is kept as sent", async () => {
    setTestEnv({ SMTP_URL: "smtp://127.0.0.1:1" });
    try {
      const db = await dbReady();
      const to = uniqueEmail("down");
      await queueMail(
        db,
        { to, subject: "Code: 123456", text: "Your code is 123456.", kind: "test", redactedSubject: "Code" },
        new Date(),
      );
      for (let attempt = 0; attempt < 5; attempt++) await deliverPendingMail(db);
      const [row] = await listOutbox(db, { to });
      expect(row).toMatchObject({ status: "failed", subject: "Code", text: "" });
    } finally {
      setTestEnv({ SMTP_URL: smtp.url });
    }
    const db = await dbReady();
    const plain = uniqueEmail("plain");
    await queueMail(db, { to: plain, subject: "Hello", text: "No secret here.", kind: "test" }, new Date());
    await deliverPendingMail(db);
    const [row] = await listOutbox(db, { to: plain });
    expect(row).toMatchObject({ status: "sent", subject: "Hello", text: "No secret here." });
  });

  it("L7: without SMTP the outbox (/dev/mail) shows a code for 24 hours; the job purge-mail then clears it, and drops rows after 30 days", async () => {
    setTestEnv({ SMTP_URL: undefined });
    const db = await dbReady();
    const email = uniqueEmail("kept");
    const sentAt = new Date("2031-02-01T10:00:00Z");
    await requestSignInCode(db, { email, ip: uniqueIp(), language: "es" }, sentAt);
    const [kept] = await listOutbox(db, { to: email });
    expect(kept?.status).toBe("kept");
    expect(kept?.text).toMatch(/\d{6}/);
    await runJob(db, "purge-mail", new Date("2031-02-02T09:00:00Z"));
    expect((await listOutbox(db, { to: email }))[0]?.text).toMatch(/\d{6}/);
    const result = await runJob(db, "purge-mail", new Date("2031-02-02T10:01:00Z"));
    expect(result.redacted).toBeGreaterThanOrEqual(1);
    expect((await listOutbox(db, { to: email }))[0]).toMatchObject({
      subject: "Tu código para entrar en Marea",
      text: "",
    });
    await runJob(db, "purge-mail", new Date("2031-03-04T10:01:00Z"));
    expect(await listOutbox(db, { to: email })).toEqual([]);
  });
});
