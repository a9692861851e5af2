import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { call } from "@/server/testing/api";
import { setTestEnv } from "@/server/webhooks/testing";
import { deliverPendingMail, listOutbox, queueMail } from "./service";
import { startSmtp } from "./testing";

let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  setTestEnv({ SMTP_URL: smtp.url, MAIL_FROM: "Marea <no-reply@marea.test>" });
});

afterAll(async () => {
  setTestEnv({ SMTP_URL: undefined, MAIL_FROM: undefined });
  await smtp?.close();
});

// docs/operations.md, "Mail": bootstrap mails the verification code through nodemailer when SMTP_URL is set.
describe("mail through SMTP", () => {
  it("bootstrap's verification code reaches a real SMTP server, and the outbox row is marked sent", async () => {
    const dev = await createDeveloper();
    const email = `smtp-${Date.now()}@example.com`;
    expect((await call("POST", "/v1/users", { key: dev.key, body: { email, language: "pt" } })).status).toBe(
      201,
    );
    const deadline = Date.now() + 10_000;
    while (!smtp.mails.some((m) => m.to.includes(email)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const mail = smtp.mails.find((m) => m.to.includes(email));
    expect(mail?.from).toBe("no-reply@marea.test");
    expect(mail?.raw).toMatch(
      /Seu c=C3=B3digo de verifica=C3=A7=C3=A3o =C3=A9 \d{6}|Seu código de verificação é \d{6}/,
    );
    const [row] = await listOutbox(await dbReady(), { to: email });
    expect(row?.status).toBe("sent");
  });

  it("a failing SMTP server leaves the mail pending and counts the attempt; it fails for good after 5", async () => {
    const db = await dbReady();
    setTestEnv({ SMTP_URL: "smtp://127.0.0.1:1" });
    try {
      const to = `down-${Date.now()}@example.com`;
      await queueMail(db, { to, subject: "s", text: "t", kind: "test" }, new Date());
      for (let attempt = 1; attempt <= 5; attempt++) {
        expect(await deliverPendingMail(db)).toBe(0);
        const [row] = await listOutbox(db, { to });
        expect(row?.attempts).toBe(attempt);
        expect(row?.status).toBe(attempt < 5 ? "pending" : "failed");
      }
    } finally {
      setTestEnv({ SMTP_URL: smtp.url });
    }
  });
});
